// What the access layer costs a read: the same routes without a credential, with ADMIN_TOKEN,
// with an access key (one store read per request) and with a key scoped to one account (the
// scope filter), on the embedded deployment with the demo data.
// Run: node --import tsx bench/access.ts [requests per case, default 2000]
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { loadDemoAccounts } from '../src/demo/fixtures.js';
import { createLogger } from '../src/support/logger.js';
import { settledSessions } from './settle.js';
import { deadline } from './deadline.js';

const N = Number(process.argv[2] ?? 2000);
const ADMIN = 'admin-token-for-the-access-bench';
const dir = mkdtempSync(join(tmpdir(), 'convops-access-bench-'));
const config = loadConfig({
  DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ADMIN_TOKEN: ADMIN, TICK_INTERVAL_SEC: '0',
  RATE_LIMIT_MAX: '10000000', REPORT_RATE_LIMIT_MAX: '10000000', FLOOR_RATE_LIMIT_MAX: '1000000',
});
const app = await startApp(config, createLogger('silent'));
const url = app.url ?? '';
const post = async (path: string, body: unknown) => (await fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify(body), signal: deadline() })).json() as Promise<Record<string, unknown>>;
await post('/api/admin/seed-demo', {});
const last = await settledSessions(url);
const key = (await post('/api/admin/keys', { name: 'bench', role: 'viewer' })).secret as string;
const scoped = (await post('/api/admin/keys', { name: 'bench scoped', role: 'viewer', accounts: [loadDemoAccounts()[0]?.id] })).secret as string;

const cases: [string, string | null][] = [['no credential', null], ['ADMIN_TOKEN', ADMIN], ['access key', key], ['scoped key', scoped]];
const routes = ['/api/sessions?limit=20', '/api/overview', '/api/floor'];
const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;

console.log(`access bench: ${cpus().length} cores, node ${process.version}, ${N} sequential requests per case, embedded, demo data (${last} sessions)`);
console.log('| route | caller | p50 ms | p99 ms |');
console.log('|---|---|---|---|');
for (const route of routes) {
  for (const [name, token] of cases) {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    for (let i = 0; i < 100; i++) await (await fetch(`${url}${route}`, { headers, signal: deadline() })).arrayBuffer();
    const times: number[] = [];
    for (let i = 0; i < N; i++) {
      const t = performance.now();
      const res = await fetch(`${url}${route}`, { headers, signal: deadline() });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${route} as ${name}: ${res.status}`);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    console.log(`| \`${route}\` | ${name} | ${pct(times, 50).toFixed(2)} | ${pct(times, 99).toFixed(2)} |`);
  }
}
await app.stop();
rmSync(dir, { recursive: true, force: true });
