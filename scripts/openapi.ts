// Writes the service's OpenAPI document to docs/openapi.json and the TypeScript types generated
// from it (openapi-typescript) to examples/convops-api.d.ts, so clients can build on a file in
// the repository. The document is the one the service serves at /docs/json, built here for a
// default deployment (READ_AUTH=open, no webhook secret) from fixed settings, so the machine's
// environment cannot change it. A test fails when either file is stale:
//   node --import tsx scripts/openapi.ts           (rewrite both)
//   node --import tsx scripts/openapi.ts --check   (exit 1 if either differs)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { loadConfig } from '../src/config.js';
import { assemble } from '../src/composition.js';
import { buildServer } from '../src/http/server.js';
import { createLogger } from '../src/support/logger.js';

const root = join(import.meta.dirname, '..');
export const DOCUMENT_FILE = join(root, 'docs', 'openapi.json');
export const TYPES_FILE = join(root, 'examples', 'convops-api.d.ts');

/** The settings the committed document describes: the defaults, with nothing running on a timer. */
const DOCUMENTED_ENV = { LOG_LEVEL: 'silent', TICK_INTERVAL_SEC: '0' } as const;

/** The OpenAPI document of a default deployment, as JSON text. */
export async function documentText(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'convops-openapi-'));
  const config = loadConfig({ ...DOCUMENTED_ENV, DATA_DIR: dir });
  const assembled = await assemble(config, createLogger(config.logLevel));
  let app: Awaited<ReturnType<typeof buildServer>> | null = null;
  try {
    app = await buildServer(assembled.services);
    await app.ready();
    return `${JSON.stringify(app.swagger(), null, 2)}\n`;
  } finally {
    await app?.close();
    await assembled.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** TypeScript types of the document's paths and schemas, for openapi-fetch or plain fetch. */
export async function typesText(document: string): Promise<string> {
  const ast = await openapiTS(JSON.parse(document) as Parameters<typeof openapiTS>[0]);
  return `// Generated from docs/openapi.json by scripts/openapi.ts: do not edit.\n${astToString(ast)}`;
}

const read = (file: string): string => { try { return readFileSync(file, 'utf8'); } catch { return ''; } };

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const document = await documentText();
  const types = await typesText(document);
  const stale = [[DOCUMENT_FILE, document], [TYPES_FILE, types]].filter(([file, text]) => read(file as string) !== text).map(([file]) => file as string);
  if (process.argv.includes('--check')) {
    if (stale.length > 0) {
      process.stderr.write(`stale: ${stale.join(', ')}; run node --import tsx scripts/openapi.ts\n`);
      process.exit(1);
    }
  } else {
    writeFileSync(DOCUMENT_FILE, document);
    writeFileSync(TYPES_FILE, types);
    process.stdout.write(`wrote ${DOCUMENT_FILE} and ${TYPES_FILE}\n`);
  }
}
