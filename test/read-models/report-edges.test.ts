// A window's partial ends are read from raw documents, or from the hour's buckets when their time
// bounds lie inside the end, and on the embedded store what a settled hour contributes is kept
// between requests (report-buckets/edges.ts) while its buckets stay the same objects. Records arriving after a window was asked for (a reply that arrives last, a
// chat interleaved with it) must show in the next answer: every window, asked before and after
// the rest of the events, equals the sum of the final documents' contributions with times in
// it, computed the plain way. A failure prints fast-check's seed: rerun with PROPERTY_SEED /
// PROPERTY_PATH.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import { MongoStore } from '../../src/adapters/store/mongo-store.js';
import type { DocumentStore } from '../../src/adapters/store/store.js';
import { incrementsOf, type BucketedModel } from '../../src/read-models/report-buckets/contributions.js';
import { addAt } from '../../src/read-models/report-buckets/document.js';
import { HistogramSet } from '../../src/read-models/report-buckets/histogram.js';
import { keysAboveZero } from '../../src/read-models/report-buckets/distinct-keys.js';
import { ReportQueries } from '../../src/read-models/report-buckets/queries.js';
import { decodeBucket, type AccountWindow } from '../../src/read-models/report-buckets/window-sums.js';
import { applyEvents } from '../../src/projector/runner.js';
import { ReadModelSet } from '../../src/read-models/read-model-set.js';
import { conversationArb, type Conversation } from '../support/conversations.js';
import { runChats, type Models } from '../support/run-chats.js';
import { uniqueName } from '../support/wait.js';
import { mongoUrl, withServers } from '../support/test-servers.js';
import { tempDir } from '../support/temp-dirs.js';
import { propertyRuns } from '../support/property-runs.js';

const IDLE_MS = 1800_000;
const LATE_MS = 300_000;
const HOUR = 3_600_000;

const params = propertyRuns;
const PARTS = ['sla', 'sessions', 'messages', 'payments', 'conversion', 'fans'] as const;
const FIGURES = ['sla', 'sessions', 'messages', 'payments', 'conversion'] as const;

function settled(c: Conversation): Conversation {
  return { ...c, arrivals: [...c.arrivals, { kind: 'tick', at: c.maxAt + LATE_MS + 1 }] };
}

/** Per account, the contributions of the final documents with times in [from, to). */
function reference(m: Models, from: number, to: number): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  const docs: [BucketedModel, Iterable<unknown>][] = [['sessions', m.sessions.values()], ['messages', m.messages.values()], ['payments', m.payments.values()], ['ppvs', m.ppvs.values()]];
  for (const [model, list] of docs) {
    for (const d of list) {
      for (const i of incrementsOf(model, d)) {
        if (i.at === null || i.at < from || i.at >= to) continue;
        const sums = out.get(i.accountId) ?? {};
        addAt(sums, i.field, i.amount);
        out.set(i.accountId, sums);
      }
    }
  }
  return out;
}

/** The same figures a histogram set answers, of the reference: totals, and how many are at most each second (and one below). */
function expectSameHistogram(actual: HistogramSet, expectedCounts: Record<string, number> | undefined, what: string): void {
  const ref = new HistogramSet();
  ref.add(decodeBucket({ frt: expectedCounts ?? {} }).frt);
  expect(actual.total, what).toBe(ref.total);
  for (const sec of Object.keys(expectedCounts ?? {}).map((k) => Number(k.slice(1)))) {
    expect(actual.atMost(sec), `${what} at most ${sec}`).toBe(ref.atMost(sec));
    expect(actual.atMost(sec - 1), `${what} at most ${sec - 1}`).toBe(ref.atMost(sec - 1));
  }
}

function expectWindow(actual: ReadonlyMap<string, AccountWindow>, expected: ReadonlyMap<string, Record<string, unknown>>, label: string, fans: boolean): void {
  const nonZero = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== 0));
  for (const accountId of new Set([...actual.keys(), ...expected.keys()])) {
    const a = actual.get(accountId);
    const e = expected.get(accountId) ?? {};
    const eb = decodeBucket(e);
    expect(nonZero(a?.counters ?? {}), `${label} ${accountId} counters`).toEqual(nonZero({ ...eb.counters }));
    expectSameHistogram(a?.frt ?? new HistogramSet(), e.frt as Record<string, number> | undefined, `${label} ${accountId} frt`);
    const waits = new HistogramSet();
    waits.addAll(a?.wait ?? new HistogramSet());
    expectSameHistogram(waits, e.wait as Record<string, number> | undefined, `${label} ${accountId} wait`);
    const chatters = (e.chatters ?? {}) as Record<string, Record<string, unknown> & { frt?: Record<string, number> }>;
    for (const key of new Set([...(a?.chatters.keys() ?? []), ...Object.keys(chatters)])) {
      const got = a?.chatters.get(key);
      const want = chatters[key] ?? {};
      // Every model's credit: the session's fields, the sender's and the converter's.
      const credited = (m: 'session' | 'sender' | 'converter') => [got?.credit[m].revenueCents ?? 0, got?.credit[m].payments ?? 0];
      const stored = (cents: string, n: string) => [(want[cents] as number | undefined) ?? 0, (want[n] as number | undefined) ?? 0];
      expect([credited('session'), credited('sender'), credited('converter')], `${label} ${accountId} chatter ${key}`)
        .toEqual([stored('revenueCents', 'payments'), stored('senderCents', 'senderPayments'), stored('converterCents', 'converterPayments')]);
      expectSameHistogram(got?.frt ?? new HistogramSet(), chatters[key]?.frt, `${label} ${accountId} chatter ${key} frt`);
    }
    // Conversion: each chatter's direct work and each campaign's sends.
    for (const tree of ['conv', 'camp'] as const) {
      const want = (e[tree] ?? {}) as Record<string, Record<string, unknown>>;
      const have = a?.[tree] ?? new Map();
      for (const key of new Set([...have.keys(), ...Object.keys(want)])) {
        const counts = Object.fromEntries(Object.entries(want[key] ?? {}).filter(([, v]) => typeof v === 'number' && v !== 0));
        expect(nonZero(have.get(key)?.counts ?? {}), `${label} ${accountId} ${tree} ${key}`).toEqual(counts);
        expectSameHistogram(have.get(key)?.price ?? new HistogramSet(), want[key]?.price as Record<string, number> | undefined, `${label} ${accountId} ${tree} ${key} price`);
        // Fans chatted, read from the fan sets beside the buckets (and kept with the settled ones).
        if (fans) expect(have.get(key)?.fans.size ?? 0, `${label} ${accountId} ${tree} ${key} fans`).toBe(keysAboveZero(want[key]?.fans as Record<string, number> | undefined).size);
      }
    }
    if (fans) expect(a?.directFans.size ?? 0, `${label} ${accountId} fans chatted`).toBe(keysAboveZero(e.directFans as Record<string, number> | undefined).size);
  }
}

// Window bounds near the data: inside an hour (so the ends are raw reads), on its edges, or open.
const boundArb = fc.tuple(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: -90, max: 90 }), fc.constantFrom(0, 1, 2));

const caseArb = fc.record({
  conversation: conversationArb({ maxSteps: 60, idleMs: IDLE_MS, lateMs: LATE_MS }),
  cut: fc.double({ min: 0.2, max: 0.9, noNaN: true }),
  bounds: fc.array(fc.tuple(boundArb, boundArb), { minLength: 1, maxLength: 4 }),
  // Asked long after the data (every hour settled), or while its last hour is being written.
  recent: fc.boolean(),
});

describe.each([
  ['embedded', async () => new EmbeddedStore(tempDir('convops-edges-'))] as const,
  ...withServers([['mongodb wire', async () => MongoStore.connect(await mongoUrl(), uniqueName('convops_edges'))] as const]),
])('report windows on the %s store', (name, open) => {
  it('show records that arrive after the window was asked for, at its partial ends too', async () => {
    await fc.assert(fc.asyncProperty(caseArb, async ({ conversation, cut, bounds, recent }) => {
      const m = runChats(settled(conversation).arrivals, IDLE_MS, LATE_MS);
      const times = [...m.messages.values()].map((d) => d.sentAt).filter((t): t is number => t !== undefined).sort((a, b) => a - b);
      if (times.length === 0) return;
      const at = ([pick, minutes, edge]: [number, number, number]): number => {
        const t = (times[pick % times.length] as number) + minutes * 60_000;
        // Sometimes on the hour itself or a millisecond into it.
        return edge === 0 ? t : Math.floor(t / HOUR) * HOUR + (edge - 1);
      };
      // And all time, up to a bound or open: read from each account's all-time bucket when it
      // holds nothing at or past the bound (without fans chatted), else from the time buckets.
      const windows = [
        ...bounds.map(([x, y]) => [at(x), at(y)].sort((a, b) => a - b) as [number, number]).filter(([a, b]) => a < b),
        [-Infinity, Infinity] as [number, number], [-Infinity, at(bounds[0]?.[1] ?? [0, 0, 0])] as [number, number],
      ];
      // Long after the data: every hour in it is settled; or a minute after its last record, so
      // windows ending in that hour read it while it is the hour being written.
      const now = recent ? conversation.maxAt + 60_000 : conversation.maxAt + 30 * 24 * HOUR;
      const store: DocumentStore = await open();
      try {
        const rm = new ReadModelSet(store).at(1);
        await new ReadModelSet(store).ensureIndexes(1);
        const split = Math.floor(m.positioned.length * cut);
        await applyEvents(rm, m.positioned.slice(0, split));
        const q = new ReportQueries(rm);
        // Asked three times before the rest arrives: the second time is when an edge hour and the
        // settled buckets' merge are kept, the third reads them.
        for (const w of windows) for (const parts of [PARTS, FIGURES]) for (let i = 0; i < 3; i++) await q.window({ from: w[0], to: w[1] }, {}, parts, now);
        for (let i = split; i < m.positioned.length; i += 7) await applyEvents(rm, m.positioned.slice(i, i + 7));
        for (const [from, to] of windows) {
          for (const parts of [PARTS, FIGURES]) {
            for (let i = 0; i < 2; i++) {
              const got = await q.window({ from, to }, {}, parts, now);
              expectWindow(got.byAccount, reference(m, from, to), `[${from}, ${to}) ${parts.join(',')} request ${i + 1}`, (parts as readonly string[]).includes('fans'));
            }
          }
        }
      } finally {
        await store.close();
      }
    }), params(name === 'embedded' ? 40 : 10));
  }, 180_000);
});
