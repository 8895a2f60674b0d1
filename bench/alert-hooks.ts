// Time from an alert's opening to its delivery at a receiver, through the real service: the
// embedded deployment assembled in-process (the same composition as `npm start`, no port
// needed for the API), an alert hook to a receiver on loopback, and alerts opened by the real
// alert code. Three loads:
//   - steady: one alert opens every `--gap-ms` (the usual case: the sweep or an ack changes one);
//   - burst: `--burst` alerts open in one go (an outage that trips many at once);
//   - beside a hang: the steady load again, with a second hook whose receiver never answers
//     (each of its attempts runs to the 5 s deadline): the first load is its floor.
// The latency is the receiver's arrival time less the transition's time (the event's
// `timestamp`, written in the alert's own write), so it covers the outbox, the fan-out, the
// send and the HTTP exchange.
//   node --import tsx bench/alert-hooks.ts [--steady 200] [--gap-ms 50] [--burst 1000] [--mongo URL]
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AlertHooks } from '../src/alert-hooks/alert-hooks.js';
import { openHookAlert } from '../src/alert-hooks/hook-alert.js';
import { assemble } from '../src/composition.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/support/logger.js';
import { startReceiver } from '../test/support/hook-receiver.js';

const { values: args } = parseArgs({ options: {
  steady: { type: 'string', default: '200' }, 'gap-ms': { type: 'string', default: '50' }, burst: { type: 'string', default: '1000' }, mongo: { type: 'string' },
} });

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? NaN;
};

const dir = mkdtempSync(join(tmpdir(), 'convops-bench-hooks-'));
const env: Record<string, string> = {
  DATA_DIR: dir, LOG_LEVEL: 'error', TICK_INTERVAL_SEC: '0', ALERT_SWEEP_SEC: '0', ALERT_HOOK_ALLOW_PRIVATE: 'true',
  ...(args.mongo ? { MONGO_URL: args.mongo, MONGO_DB: `convops_bench_hooks_${Date.now()}` } : {}),
};
const assembled = await assemble(loadConfig(env), createLogger('error'));
const { store } = assembled.services;
const receiver = await startReceiver();
await new AlertHooks(store).create({ url: receiver.url, events: ['opened'], accountIds: null, format: 'standard', createdBy: 'bench' });

const latencies = (from: number): number[] => receiver.received.slice(from).map((r) => r.at - Date.parse((JSON.parse(r.body) as { timestamp: string }).timestamp));
const waitFor = async (n: number): Promise<void> => {
  const deadline = Date.now() + 300_000;
  while (receiver.received.length < n) {
    if (Date.now() > deadline) throw new Error(`only ${receiver.received.length} of ${n} delivered`);
    await new Promise((r) => setTimeout(r, 5));
  }
};
const report = (label: string, xs: number[], ms: number) => console.log(
  `${label}: ${xs.length} deliveries in ${(ms / 1000).toFixed(2)} s · opening → delivery p50 ${quantile(xs, 0.5)} ms, p99 ${quantile(xs, 0.99)} ms, max ${Math.max(...xs)} ms`,
);

console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), node ${process.version}, store ${args.mongo ? 'Mongo-wire' : 'embedded'}`);
const steady = Number(args.steady);
let t0 = Date.now();
for (let i = 0; i < steady; i++) {
  await openHookAlert(store, `steady${String(i).padStart(6, '0')}`, 'http://bench/', 'bench', Date.now());
  await new Promise((r) => setTimeout(r, Number(args['gap-ms'])));
}
await waitFor(steady);
report(`steady (one alert every ${args['gap-ms']} ms)`, latencies(0), Date.now() - t0);

const burst = Number(args.burst);
t0 = Date.now();
const now = Date.now();
await Promise.all(Array.from({ length: burst }, (_, i) => openHookAlert(store, `burst${String(i).padStart(6, '0')}`, 'http://bench/', 'bench', now)));
const written = Date.now() - t0;
await waitFor(steady + burst);
report(`burst (${burst} alerts written in ${written} ms)`, latencies(steady), Date.now() - t0);

// A second hook to a receiver that never answers: the first hook's deliveries should not wait for it.
const hanging = await startReceiver(() => 'hang');
await new AlertHooks(store).create({ url: hanging.url, events: ['opened'], accountIds: null, format: 'standard', createdBy: 'bench' });
t0 = Date.now();
for (let i = 0; i < steady; i++) {
  await openHookAlert(store, `beside${String(i).padStart(6, '0')}`, 'http://bench/', 'bench', Date.now());
  await new Promise((r) => setTimeout(r, Number(args['gap-ms'])));
}
await waitFor(2 * steady + burst);
report(`steady beside a receiver that hangs (${hanging.received.length} attempts open or timed out there)`, latencies(steady + burst), Date.now() - t0);

await hanging.close();
await receiver.close();
await assembled.stop();
rmSync(dir, { recursive: true, force: true });
