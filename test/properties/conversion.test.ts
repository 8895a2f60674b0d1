// The conversion report against the reference model (test/support/conversion-reference.ts) over
// random money histories: direct and queued sends, priced or free, their unlocks (late, twice,
// without a link, into another chat, of a PPV never sent), tips, the connector's copy of a
// named chatter's send before or after the webhook's, and replies that break the quality rules. The records go through the real doors'
// routing, the processor's round and the projector's folds in any arrival order within the
// lateness, some delivered twice; the events land on the embedded store in random batches, some
// applied again, and GET /api/conversion's query answers every window as the reference does.
// A second store given the same events at once (a replay) answers the same. A failure prints
// fast-check's seed: rerun with PROPERTY_SEED / PROPERTY_PATH.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AppendRecord } from '../../src/adapters/log/log.js';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import { messageWebhook, ppvUnlockedWebhook } from '../../src/demo/platform-bodies.js';
import { tickRecords } from '../../src/processor/ticker.js';
import { applyEvents } from '../../src/projector/runner.js';
import { conversionOf } from '../../src/read-models/conversion.js';
import { ReadModelSet } from '../../src/read-models/read-model-set.js';
import { referenceConversion, type CreditedPayment, type Model, type SendFact, type UnlockFact } from '../support/conversion-reference.js';
import { connectorRecord, factRecord, webhookRecord } from '../support/inbound-records.js';
import type { Fact } from '../support/reference-model.js';
import { reportData } from '../support/report-reference.js';
import { runRecords } from '../support/run-chats.js';
import { tempDir } from '../support/temp-dirs.js';
import { propertyRuns } from '../support/property-runs.js';

const IDLE_MS = 1_800_000;
const MODELS: readonly Model[] = ['session', 'sender', 'converter'];
const LATE_MS = 300_000;
const MINUTE = 60_000;
const T0 = Date.UTC(2026, 5, 10, 10, 0);

const params = propertyRuns;

const iso = (ms: number): string => new Date(ms).toISOString();

/** The account's banned phrases. */
const BANNED = ['meet up', 'free today'];

/** Reply texts, and the quality rules each breaks (docs/api.md): written here, not read from the rules. */
const TEXTS: readonly { text: string; contact: boolean; payment: boolean; banned: boolean }[] = [
  { text: 'hey you', contact: false, payment: false, banned: false },
  { text: 'add me on telegram', contact: true, payment: false, banned: false },
  { text: 'send it with venmo', contact: false, payment: true, banned: false },
  { text: 'see https://linktr.ee/me or pay by cash app', contact: true, payment: true, banned: false },
  { text: 'unlock it on https://onlyfans.com/my/chats', contact: false, payment: false, banned: false },
  { text: 'we could Meet  Up, it is FREE today', contact: false, payment: false, banned: true },
  { text: 'a meetup later', contact: false, payment: false, banned: false },
];

type Step =
  | { kind: 'fan'; chat: number; gapMin: number }
  | { kind: 'direct'; chat: number; gapMin: number; chatter: string | null; price: number; connectorFirst: boolean; unlock: UnlockPlan; text: number }
  | { kind: 'queued'; chat: number; gapMin: number; queue: string; price: number; unlock: UnlockPlan }
  | { kind: 'stray'; chat: number; gapMin: number; how: 'no-link' | 'other-chat' | 'unseen'; amount: number }
  | { kind: 'tip'; chat: number; gapMin: number; cents: number };

/** Whether a PPV is bought, how many minutes after its send, whether the platform says so twice, and when its transaction comes (seconds from the purchase; null: none). */
type UnlockPlan = { afterMin: number; twice: boolean; paySec: number | null } | null;

const unlockArb: fc.Arbitrary<UnlockPlan> = fc.option(fc.record({
  afterMin: fc.integer({ min: 0, max: 150 }), twice: fc.boolean(), paySec: fc.option(fc.integer({ min: -60, max: 900 }), { nil: null }),
}), { nil: null, freq: 2 });
const chatArb = fc.integer({ min: 0, max: 3 });
const gapArb = fc.integer({ min: 0, max: 40 });
const priceArb = fc.constantFrom(0, 0, 500, 1200, 2500, 999);

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('fan' as const), chat: chatArb, gapMin: gapArb }),
  fc.record({ kind: fc.constant('direct' as const), chat: chatArb, gapMin: gapArb, chatter: fc.constantFrom('ann', 'bob', null), price: priceArb, connectorFirst: fc.boolean(), unlock: unlockArb, text: fc.integer({ min: 0, max: TEXTS.length - 1 }) }),
  fc.record({ kind: fc.constant('queued' as const), chat: chatArb, gapMin: gapArb, queue: fc.constantFrom('555', '777'), price: priceArb, unlock: unlockArb }),
  fc.record({ kind: fc.constant('stray' as const), chat: chatArb, gapMin: gapArb, how: fc.constantFrom('no-link' as const, 'other-chat' as const, 'unseen' as const), amount: fc.integer({ min: 100, max: 5000 }) }),
  fc.record({ kind: fc.constant('tip' as const), chat: chatArb, gapMin: gapArb, cents: fc.integer({ min: 100, max: 5000 }) }),
);

const caseArb = fc.record({
  steps: fc.array(stepArb, { minLength: 8, maxLength: 60, size: 'max' }),
  /** Arrival jitter per record, as a share of half the lateness (records never arrive late). */
  jitter: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 30 }),
  /** Which records are delivered twice (every n-th, 0: none). */
  redeliver: fc.integer({ min: 0, max: 5 }),
  cuts: fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 6 }),
  again: fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }),
  windows: fc.array(fc.tuple(fc.integer({ min: -30, max: 600 }), fc.integer({ min: 1, max: 600 })), { minLength: 1, maxLength: 3 }),
});

interface History {
  readonly sends: SendFact[];
  readonly unlocks: UnlockFact[];
  /** What the session reference reads: every message and payment. */
  readonly facts: Fact[];
  /** Each payment's chat and whether it bought a PPV, by id. */
  readonly paid: Map<string, { chat: string; ppv: boolean }>;
  /** Each record with when it happened. */
  readonly records: { at: number; record: AppendRecord }[];
  maxAt: number;
}

const ACCOUNT = 'acct_money';
const fanOf = (chat: number): string => String(301 + chat);

function historyOf(steps: readonly Step[]): History {
  const h: History = { sends: [], unlocks: [], facts: [], paid: new Map(), records: [], maxAt: T0 };
  let t = T0;
  let ids = 0;
  const id = () => String(880_000 + ++ids);
  let key = 0;
  const add = (at: number, record: AppendRecord) => h.records.push({ at, record });
  const webhook = (at: number, body: string) => add(at, webhookRecord(body, `evt_money_${++key}`, at));
  const unlockOf = (chat: number, at: number, amount: number, link: UnlockFact['link']) => {
    const ref = id();
    // Notifications are stamped to the minute.
    const stamped = Math.floor(at / MINUTE) * MINUTE;
    h.unlocks.push({ kind: 'unlock', account: ACCOUNT, chat: fanOf(chat), ref, at: stamped, link, amountCents: amount });
    webhook(stamped, ppvUnlockedWebhook({
      accountId: ACCOUNT, fanId: fanOf(chat), notificationId: ref, createdAt: iso(stamped), amountDollars: amount / 100,
      ...(link ? { ppvMessageId: link.id, linkFanId: link.chat } : {}),
    }));
    h.maxAt = Math.max(h.maxAt, stamped);
  };
  const planUnlock = (chat: number, send: SendFact, plan: UnlockPlan) => {
    if (!plan || send.priceCents === 0) return;
    const link = { id: send.id, chat: send.chat };
    unlockOf(chat, send.at + plan.afterMin * MINUTE, send.priceCents, link);
    if (plan.twice) unlockOf(chat, send.at + (plan.afterMin + 1) * MINUTE, send.priceCents, link);
    if (plan.paySec === null) return;
    // The purchase's transaction: at whole seconds (the platform's precision), near the unlock.
    const at = Math.floor((send.at + plan.afterMin * MINUTE + plan.paySec * 1000) / 1000) * 1000;
    const f: Fact = { kind: 'payment', account: ACCOUNT, chat: send.chat, id: `${id()}${'0'.repeat(26)}`, at, cents: send.priceCents, ppv: true };
    h.facts.push(f);
    h.paid.set(f.id, { chat: send.chat, ppv: true });
    add(at, factRecord(f, `evt_money_${++key}`, at));
    h.maxAt = Math.max(h.maxAt, at);
  };
  for (const s of steps) {
    t += s.gapMin * MINUTE + 1_000;
    h.maxAt = Math.max(h.maxAt, t);
    const fanId = fanOf(s.chat);
    switch (s.kind) {
      case 'fan': {
        const f: Fact = { kind: 'message', account: ACCOUNT, chat: fanId, id: id(), at: t, sender: 'fan', chatter: null };
        h.facts.push(f);
        add(t, factRecord(f, `evt_money_${++key}`, t));
        break;
      }
      case 'direct': {
        const said = TEXTS[s.text] ?? { text: 'hey', contact: false, payment: false, banned: false };
        const send: SendFact = { kind: 'send', account: ACCOUNT, chat: fanId, id: id(), at: t, chatter: s.chatter, queue: null, priceCents: s.price, qa: { contact: said.contact, payment: said.payment, banned: said.banned } };
        h.sends.push(send);
        const fact: Fact = { kind: 'message', account: ACCOUNT, chat: fanId, id: send.id, at: t, sender: 'human', chatter: s.chatter };
        h.facts.push(fact);
        const platformCopy = () => webhook(t, messageWebhook({ accountId: ACCOUNT, fanId, messageId: send.id, createdAt: iso(t), text: said.text, direction: 'sent', priceDollars: s.price / 100 }));
        // A named chatter's send: the connector's copy (no price) and the webhook's (no chatter), either first.
        const connectorCopy = (chatter: string) => add(t, connectorRecord({ account: ACCOUNT, chat: fanId, id: send.id, at: t, chatter, text: said.text }, t));
        if (s.chatter !== null && s.connectorFirst) connectorCopy(s.chatter);
        platformCopy();
        if (s.chatter !== null && !s.connectorFirst) connectorCopy(s.chatter);
        planUnlock(s.chat, send, s.unlock);
        break;
      }
      case 'queued': {
        const send: SendFact = { kind: 'send', account: ACCOUNT, chat: fanId, id: id(), at: t, chatter: null, queue: s.queue, priceCents: s.price, qa: { contact: false, payment: false, banned: false } };
        h.sends.push(send);
        h.facts.push({ kind: 'message', account: ACCOUNT, chat: fanId, id: send.id, at: t, sender: 'automated', chatter: null });
        webhook(t, messageWebhook({ accountId: ACCOUNT, fanId, messageId: send.id, createdAt: iso(t), text: 'mass', direction: 'sent', fromQueue: true, queueId: s.queue, priceDollars: s.price / 100 }));
        planUnlock(s.chat, send, s.unlock);
        break;
      }
      case 'stray':
        unlockOf(s.chat, t, s.amount, s.how === 'no-link' ? null : s.how === 'other-chat' ? { id: id(), chat: fanOf(s.chat + 10) } : { id: id(), chat: fanId });
        break;
      case 'tip': {
        const f: Fact = { kind: 'payment', account: ACCOUNT, chat: fanId, id: `${id()}${'0'.repeat(26)}`, at: t, cents: s.cents };
        h.facts.push(f);
        h.paid.set(f.id, { chat: fanId, ppv: false });
        add(t, factRecord(f, `evt_money_${++key}`, t));
        break;
      }
    }
  }
  return h;
}

/** Arrival order: by time, each record up to half the lateness later; every n-th again, later still. */
function arrivals(h: History, jitter: readonly number[], redeliver: number): AppendRecord[] {
  const timed = h.records.map((r, i) => ({ ...r, arrives: r.at + (jitter[i % jitter.length] ?? 0) * (LATE_MS / 2) }));
  const again = redeliver === 0 ? [] : timed.filter((_, i) => i % redeliver === 0).map((r) => ({ ...r, arrives: r.arrives + LATE_MS / 4 }));
  return [...timed, ...again].sort((a, b) => a.arrives - b.arrives).map((r) => r.record);
}

describe('the conversion report', () => {
  it('equals the reference model in every window, whatever the arrival order, redelivery, batching or replay', async () => {
    await fc.assert(fc.asyncProperty(caseArb, async (c) => {
      const h = historyOf(c.steps);
      const tickAt = h.maxAt + 2 * LATE_MS + IDLE_MS;
      const m = runRecords([...arrivals(h, c.jitter, c.redeliver), ...tickRecords(1, tickAt)], IDLE_MS, LATE_MS, { bannedPhrases: { [ACCOUNT]: BANNED } });
      const credited: CreditedPayment[] = reportData(h.facts, IDLE_MS, tickAt - LATE_MS).payments.map((p) => ({
        account: p.account, chat: h.paid.get(p.id)?.chat ?? '', ppv: h.paid.get(p.id)?.ppv ?? false, at: p.at, cents: p.cents, chatter: p.chatterId,
      }));
      const [live, replayed] = [new EmbeddedStore(tempDir('convops-conv-')), new EmbeddedStore(tempDir('convops-conv-replay-'))];
      try {
        const rm = new ReadModelSet(live).at(1);
        await new ReadModelSet(live).ensureIndexes(1);
        for (let start = 0, i = 0; start < m.positioned.length; i++) {
          const batch = m.positioned.slice(start, start + (c.cuts[i % c.cuts.length] ?? 1));
          await applyEvents(rm, batch);
          if (c.again[i % c.again.length]) await applyEvents(rm, batch.slice(0, Math.ceil(batch.length / 2)));
          start += batch.length;
        }
        const rmReplay = new ReadModelSet(replayed).at(1);
        await new ReadModelSet(replayed).ensureIndexes(1);
        await applyEvents(rmReplay, m.positioned);
        const windows: [number, number][] = [[-Infinity, Infinity], ...c.windows.map(([a, len]): [number, number] => [T0 + a * MINUTE + 7_000, T0 + (a + len) * MINUTE + 7_000])];
        for (const [from, to] of windows) {
          for (const model of MODELS) {
            const got = await conversionOf(rm, { from, to }, {}, tickAt, model);
            const want = referenceConversion(h.sends, h.unlocks, credited, from, to, model);
            const label = `${model} window [${Number.isFinite(from) ? iso(from) : '-∞'}, ${Number.isFinite(to) ? iso(to) : '∞'})`;
            expect(got.chatters, `${label} chatters`).toEqual(want.chatters);
            expect(got.accounts, `${label} accounts`).toEqual(want.accounts);
            expect(got.campaigns, `${label} campaigns`).toEqual(want.campaigns);
            expect(await conversionOf(rmReplay, { from, to }, {}, tickAt, model), `${label} replayed`).toEqual(got);
          }
        }
      } finally {
        await live.close();
        await replayed.close();
      }
    }), params(30));
  }, 240_000);
});
