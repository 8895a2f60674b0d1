// Per-event cost of the projector's one-id-one-content check (src/projector/event-digests.ts): rounds of ROUND
// events with new ids (one $in read, one insert-only write per round), then the same events again (all
// ids known, digests equal: a redelivery). Embedded store by default; MONGO_URL=... for a Mongo-wire server.
// npx tsx bench/event-digests.ts
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore } from '../src/adapters/index.js';
import { loadConfig } from '../src/config.js';
import { checkEventContent, type RawPositioned } from '../src/projector/event-digests.js';

const env: Record<string, string> = process.env.MONGO_URL ? { MONGO_URL: process.env.MONGO_URL, MONGO_DB: `bench_${Date.now()}`, KAFKA_BROKERS: 'x:1' } : { DATA_DIR: mkdtempSync(join(tmpdir(), 'digest-')) };
const store = await createStore(loadConfig(env));
const ROUND = Number(process.env.ROUND ?? 500);
const TOTAL = Number(process.env.TOTAL ?? 50_000);
let offset = 0;
const round = (): RawPositioned[] => Array.from({ length: ROUND }, () => {
  const o = offset++;
  const event = { id: `acct_x:${o % 600}:${Math.floor(o / 600) + 1}`, type: 'MessageRecorded', seq: Math.floor(o / 600) + 1, chatKey: `acct_x:${o % 600}`, accountId: 'acct_x', chatId: String(o % 600), at: o, data: { messageId: String(o), text: 'hello there '.repeat(5), sender: 'fan', sentAt: o }, source: { partition: 0, offset: o } };
  const raw = Buffer.from(JSON.stringify(event));
  return { event: event as never, partition: 0, offset: o, raw };
});
const t0 = performance.now();
for (let i = 0; i < TOTAL / ROUND; i++) await checkEventContent(store, 'session-events', round());
const ms = performance.now() - t0;
// Redelivery of everything (every id known).
offset = 0;
const t1 = performance.now();
for (let i = 0; i < TOTAL / ROUND; i++) await checkEventContent(store, 'session-events', round());
const ms2 = performance.now() - t1;
console.log(JSON.stringify({ store: process.env.MONGO_URL ? 'mongo-wire' : 'embedded', round: ROUND, events: TOTAL, newIdsUsPerEvent: +(ms * 1000 / TOTAL).toFixed(1), knownIdsUsPerEvent: +(ms2 * 1000 / TOTAL).toFixed(1) }));
await store.close();
