// What "why this figure?" costs (issue 55): GET /api/sessions/:id/explain reads the chat's
// partition again from the chat's first record, so its cost follows the records between that
// record and the chat's last, not the chat's own. One partition (INBOUND_PARTITIONS=1, the worst
// case); a target chat of --chat records (a fan and a reply in turn, 10 s apart: one session)
// spread evenly through --others one-message chats, all posted as signed webhooks. Printed: the
// explain route's p50 / p99 over --repeat requests beside the same session's analysis route
// (a per-session read, the floor), and the records it read again.
//   node --import tsx bench/explain.ts [--others 50000] [--chat 200] [--repeat 20] [--only embedded|kafka]
import { parseArgs } from 'node:util';
import { signBody } from '../src/ingest/signature.js';
import { messageBody } from '../test/support/platform.js';
import { deadline } from './deadline.js';
import { onDeployments } from './deployments.js';
import { startService } from './service-process.js';

const { values: args } = parseArgs({
  options: {
    others: { type: 'string', default: '50000' },
    chat: { type: 'string', default: '200' },
    repeat: { type: 'string', default: '20' },
    only: { type: 'string' },
  },
});
const OTHERS = Number(args.others);
const CHAT = Number(args.chat);
const REPEAT = Number(args.repeat);
const SECRET = 'bench-explain-secret';
const ADMIN = 'bench-explain-admin-token-0000';
const ACCOUNT = 'acct_e4b1a1be0c000000000000000000000055';
const TARGET = 5_555_555;

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

async function timedGet(url: string): Promise<{ ms: number; body: unknown }> {
  const t = performance.now();
  const res = await fetch(url, { signal: deadline(120_000), headers: { authorization: `Bearer ${ADMIN}` } });
  const body = await res.json();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
  return { ms: performance.now() - t, body };
}

async function run(name: string, env: Record<string, string>): Promise<void> {
  const service = await startService({ ...env, PLATFORMAPI_WEBHOOK_SECRET: SECRET, ADMIN_TOKEN: ADMIN, INBOUND_PARTITIONS: '1', TICK_INTERVAL_SEC: '3600' });
  const { base } = service;
  try {
    // Every OTHERS / CHAT webhooks, one of the target chat's, in its order.
    const every = Math.max(1, Math.floor(OTHERS / CHAT));
    const total = OTHERS + CHAT;
    const start = Date.now() - 2 * 3_600_000;
    const bodyOf = (i: number): { body: string; key: string } => {
      const k = Math.floor(i / (every + 1));
      if (i % (every + 1) === every && k < CHAT) {
        return { key: `evt_explain_t${k}`, body: messageBody({ accountId: ACCOUNT, fanId: TARGET, messageId: 9_555_000_000 + k, createdAt: new Date(start + k * 10_000).toISOString(), direction: k % 2 === 0 ? 'received' : 'sent' }) };
      }
      return { key: `evt_explain_o${i}`, body: messageBody({ accountId: ACCOUNT, fanId: 6_000_000 + i, messageId: 9_600_000_000 + i, createdAt: new Date(start + i).toISOString(), direction: 'received' }) };
    };
    let next = 0;
    const send = async (): Promise<void> => {
      for (let i = next++; i < total; i = next++) {
        const { body, key } = bodyOf(i);
        // Again after a 503 (the log did not store it in time), as the platform does.
        for (let tries = 1; ; tries++) {
          const res = await fetch(`${base}/webhooks/platform`, { method: 'POST', body, signal: deadline(), headers: { 'content-type': 'application/json', signature: signBody(SECRET, body), 'x-ofapi-idempotency-key': key } });
          await res.arrayBuffer();
          if (res.status === 200) break;
          if (res.status !== 503 || tries === 10) throw new Error(`webhook ${i}: ${res.status}`);
          await new Promise((r) => setTimeout(r, 200 * tries));
        }
      }
    };
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 32 }, send));
    const posted = (performance.now() - t0) / 1000;
    const sessionId = `${ACCOUNT}:${TARGET}:1`;
    for (let i = 0; ; i++) {
      const res = await fetch(`${base}/api/sessions/${encodeURIComponent(sessionId)}/analysis`, { signal: deadline(), headers: { authorization: `Bearer ${ADMIN}` } });
      const body = (await res.json()) as { metrics?: { messageCount?: number } };
      if (res.ok && body.metrics?.messageCount === CHAT) break;
      if (i > 6000) throw new Error('the target chat was not processed in 10 minutes');
      await new Promise((r) => setTimeout(r, 100));
    }
    // Timed once the pipeline is idle: every consumer caught up (nothing else takes the cores).
    for (let i = 0; ; i++) {
      const text = await fetch(`${base}/metrics`, { signal: deadline(), headers: { authorization: `Bearer ${ADMIN}` } }).then((r) => r.text());
      const lag = [...text.matchAll(/^convops_consumer_lag_records\{[^}]*\} (\d+)/gm)].reduce((a, m) => a + Number(m[1]), 0);
      if (lag === 0 && i > 0) break;
      if (i > 1200) throw new Error('the pipeline did not catch up in 10 minutes');
      await new Promise((r) => setTimeout(r, 500));
    }
    const explain = `${base}/api/sessions/${encodeURIComponent(sessionId)}/explain`;
    const floor = `${base}/api/sessions/${encodeURIComponent(sessionId)}/analysis`;
    const first = await timedGet(explain);
    const read = (first.body as { recordsRead: number; agrees: boolean }).recordsRead;
    const agrees = (first.body as { agrees: boolean }).agrees;
    const times = { explain: [] as number[], floor: [] as number[] };
    for (let i = 0; i < REPEAT; i++) {
      times.floor.push((await timedGet(floor)).ms);
      times.explain.push((await timedGet(explain)).ms);
    }
    const line = (xs: number[]) => `p50 ${percentile(xs, 50).toFixed(1)} / p99 ${percentile(xs, 99).toFixed(1)} ms`;
    console.log(`${name.padEnd(12)} ${total} webhooks posted in ${posted.toFixed(1)} s; the target chat's ${CHAT} records spread over ${total} on one partition`);
    console.log(`${name.padEnd(12)} explain (${read} records read again, agrees ${agrees}): first ${first.ms.toFixed(1)} ms, then ${line(times.explain)}; analysis (the floor) ${line(times.floor)}`);
  } finally {
    console.log(`${name.padEnd(12)} stopped ${(await service.stop()).toFixed(1)} s after SIGTERM`);
  }
}

await onDeployments(args.only, (name, env) => run(name, env));
