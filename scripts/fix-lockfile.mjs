// npm drops optional platform packages it cannot fetch from the lock file, and `npm ci` then
// refuses it. This puts back msgpackr-extract's packages for other platforms (never installed
// here). Run after `npm install` changes the lock file: node scripts/fix-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const version = lock.packages['node_modules/msgpackr-extract']?.version ?? '3.0.7';
const platforms = { 'darwin-arm64': ['darwin', 'arm64'], 'darwin-x64': ['darwin', 'x64'], 'linux-arm': ['linux', 'arm'], 'win32-x64': ['win32', 'x64'] };
for (const [name, [os, cpu]] of Object.entries(platforms)) {
  const key = `node_modules/@msgpackr-extract/msgpackr-extract-${name}`;
  lock.packages[key] ??= { version, cpu: [cpu], license: 'MIT', optional: true, os: [os] };
}
const sorted = {};
for (const k of Object.keys(lock.packages).sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1))) sorted[k] = lock.packages[k];
lock.packages = sorted;
writeFileSync(path, JSON.stringify(lock, null, 2) + '\n');
