// How long a backlog redelivered at once stays lapsed but not said, and what it costs a reader
// meanwhile (issue 53). N fans who wrote 30 hours ago and were never answered arrive by webhook at
// once: their sessions are past the unanswered limit on arrival, but the lateness keeps them open
// in the log. The next clock tick says each lapsed (SessionLapsed) and the projector folds that;
// on the embedded store its sweep may get there first. The bench prints, from the last webhook's
// answer: when every session was in the read models, when none was left open past its deadline,
// and an overview's latency polled every half second meanwhile (the readers' cost of what is not
// said yet) against the same overview once everything is said.
//   node --import tsx bench/lapse.ts [--sessions 10000] [--tick-sec 5] [--only embedded|kafka]
import { parseArgs } from 'node:util';
import { createStore } from '../src/adapters/index.js';
import { loadConfig } from '../src/config.js';
import { pastDeadlineFilter } from '../src/domain/session-deadline.js';
import { signBody } from '../src/ingest/signature.js';
import { ReadModelSet } from '../src/read-models/read-model-set.js';
import { messageBody } from '../test/support/platform.js';
import { deadline } from './deadline.js';
import { onDeployments } from './deployments.js';
import { startService } from './service-process.js';

const { values: args } = parseArgs({
  options: {
    sessions: { type: 'string', default: '10000' },
    'tick-sec': { type: 'string', default: '5' },
    only: { type: 'string' },
  },
});
const N = Number(args.sessions);
const TICK_SEC = Number(args['tick-sec']);
const SECRET = 'bench-lapse-secret';
const ACCOUNT = 'acct_1a95ebe4c000000000000000000000053';

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

async function timedGet(url: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(url, { signal: deadline() });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return performance.now() - t;
}

async function run(name: string, env: Record<string, string>): Promise<void> {
  const service = await startService({ ...env, PLATFORMAPI_WEBHOOK_SECRET: SECRET, TICK_INTERVAL_SEC: String(TICK_SEC) });
  const { base, env: full } = service;
  let store: Awaited<ReturnType<typeof createStore>> | null = null;
  try {
    // The store the service writes, opened beside it (the embedded one is shared between processes).
    const opened = await createStore(loadConfig(full as Record<string, string>));
    store = opened;
    const overview = `${base}/api/overview?accountId=${ACCOUNT}`;
    const quiet: number[] = [];
    for (let i = 0; i < 20; i++) quiet.push(await timedGet(overview));
    // The backlog, 32 webhooks at a time.
    const wrote = Date.now() - 30 * 3_600_000;
    let next = 0;
    const send = async (): Promise<void> => {
      for (let i = next++; i < N; i = next++) {
        const body = messageBody({ accountId: ACCOUNT, fanId: 5_300_000 + i, messageId: 9_530_000_000 + i, createdAt: new Date(wrote + i).toISOString(), direction: 'received' });
        const res = await fetch(`${base}/webhooks/platform`, { method: 'POST', body, signal: deadline(), headers: { 'content-type': 'application/json', signature: signBody(SECRET, body), 'x-ofapi-idempotency-key': `evt_lapse_${i}` } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`webhook ${i}: ${res.status}`);
      }
    };
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 32 }, send));
    const posted = performance.now();
    const rm = async () => new ReadModelSet(opened).at(await new ReadModelSet(opened).activeVersion());
    let projectedAt: number | null = null;
    let saidAt: number | null = null;
    const during: number[] = [];
    while (saidAt === null) {
      const models = await rm();
      const total = await models.sessions.countDocuments({ accountId: ACCOUNT });
      const unsaid = await models.sessions.countDocuments({ accountId: ACCOUNT, ...pastDeadlineFilter(Date.now()) });
      if (projectedAt === null && total >= N) projectedAt = performance.now();
      if (projectedAt !== null && unsaid === 0) saidAt = performance.now();
      else during.push(await timedGet(overview));
      if (performance.now() - posted > 600_000) throw new Error(`after 600 s: ${total} of ${N} sessions projected, ${unsaid} open past their deadline`);
      if (saidAt === null) await new Promise((r) => setTimeout(r, 500));
    }
    const after: number[] = [];
    for (let i = 0; i < 50; i++) after.push(await timedGet(overview));
    const s = (ms: number) => (ms / 1000).toFixed(1);
    const p = (xs: number[]) => `p50 ${percentile(xs, 50).toFixed(1)} / p99 ${percentile(xs, 99).toFixed(1)} ms`;
    console.log(`${name.padEnd(12)} ${N} lapsed fans posted in ${s(posted - t0)} s; all in the read models ${s((projectedAt ?? posted) - posted)} s later, none open past its deadline ${s(saidAt - posted)} s later (ticks every ${TICK_SEC} s)`);
    console.log(`${name.padEnd(12)} /api/overview: quiet ${p(quiet)}; until said ${p(during)} over ${during.length} polls; once said ${p(after)}`);
  } finally {
    await store?.close();
    await service.stop();
  }
}

await onDeployments(args.only, run);
