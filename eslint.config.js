// Lint and format rules, run by `npm run lint` and by the README's test command.
// Type-aware rules where a mistake is silent at run time: a promise nobody awaits loses its
// error (no-floating-promises), an async function handed to something that ignores its
// promise loses it too (no-misused-promises). Formatting is @stylistic's, set to the style
// the code is written in, so `npm run format` fixes what it reports.
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // examples/convops-api.d.ts is generated (scripts/openapi.ts).
  { ignores: ['dist/**', 'node_modules/**', '.cache/**', 'data/**', 'coverage/**', 'examples/convops-api.d.ts'] },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // Tests and benchmarks read loosely typed JSON answers; their `any` stays inside them.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['web/**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { ...globals.browser }, sourceType: 'module' },
  },
  {
    files: ['**/*.ts', 'web/**/*.js', '*.js'],
    plugins: { '@stylistic': stylistic },
    rules: {
      '@stylistic/indent': ['error', 2, { SwitchCase: 1, ignoredNodes: ['ConditionalExpression *', 'TemplateLiteral *'] }],
      '@stylistic/quotes': ['error', 'single', { avoidEscape: true }],
      '@stylistic/semi': ['error', 'always'],
      '@stylistic/comma-dangle': ['error', 'always-multiline'],
      '@stylistic/no-trailing-spaces': 'error',
      '@stylistic/eol-last': 'error',
      '@stylistic/no-multiple-empty-lines': ['error', { max: 1, maxEOF: 0 }],
      '@stylistic/arrow-parens': ['error', 'always'],
      '@stylistic/keyword-spacing': 'error',
      '@stylistic/space-infix-ops': 'error',
      '@stylistic/brace-style': ['error', '1tbs', { allowSingleLine: true }],
    },
  },
);
