// "Why this figure?" cannot disagree with the pipeline (issue 55): for generated conversations
// (redeliveries, connector copies, forced closes, ticks, arrivals up to the lateness late) run
// through the processor's own round in rounds of generated sizes over 1 to 3 partitions, every
// session explained from its chat's records alone (its own, and its partition's ticks, decided
// again from nothing in one go) folds to the stored session, field for field, and each figure
// names the event that set it and the record behind it. A failure prints fast-check's seed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../src/adapters/log/log.js';
import { readInboundMeta } from '../../src/domain/inbound-record.js';
import { explainRecords, FIGURES, type Definitions } from '../../src/read-side/explain.js';
import type { SessionDoc } from '../../src/read-models/sessions/projection.js';
import { conversationArb } from '../support/conversations.js';
import { runChats, type Models } from '../support/run-chats.js';

const IDLE_MS = 1_800_000;
const LATE_MS = 300_000;
const DEFINITIONS: Definitions = { sessionIdleSec: IDLE_MS / 1000, allowedLatenessSec: LATE_MS / 1000, unansweredCloseSec: 86_400, attributionLookbackSec: 86_400 };
const SETTINGS = { idleMs: IDLE_MS, lateMs: LATE_MS, unansweredMs: 86_400_000, lookbackMs: 86_400_000, now: 0 };

const params = <T extends unknown[]>(numRuns: number): fc.Parameters<T> => ({
  numRuns: Number(process.env.PROPERTY_RUNS ?? numRuns),
  ...(process.env.PROPERTY_SEED ? { seed: Number(process.env.PROPERTY_SEED), path: process.env.PROPERTY_PATH } : {}),
});

/** What the explain route reads again for a session: from its chat's first record to where its state stands, the chat's own records and the partition's ticks. */
function chatRecords(m: Models, session: SessionDoc): { records: LogRecord[]; partition: number } {
  const at = m.positions.get(session.chatKey);
  if (!at) throw new Error(`${session.chatKey}: no stored state`);
  const from = Math.min(...m.records.filter((r) => r.partition === at.partition && r.key === session.chatKey).map((r) => r.offset));
  const records = m.records.filter((r) => r.partition === at.partition && r.offset >= from && r.offset <= at.offset
    && (r.key === session.chatKey || readInboundMeta(r.headers)?.source === 'tick'));
  return { records, partition: at.partition };
}

describe('explaining a session from its chat\'s records', () => {
  it('agrees with the session the pipeline stored, for every session of generated conversations', () => {
    const layout = fc.record({ roundSize: fc.integer({ min: 1, max: 12 }), partitions: fc.integer({ min: 1, max: 3 }) });
    fc.assert(fc.property(conversationArb({ idleMs: IDLE_MS, lateMs: LATE_MS }), layout, (c, l) => {
      const m = runChats([...c.arrivals, { kind: 'tick', at: c.maxAt + LATE_MS + 1 }], IDLE_MS, LATE_MS, l);
      for (const session of m.sessions.values()) {
        const { records, partition } = chatRecords(m, session);
        const e = explainRecords(records, 'inbound', partition, session.chatKey, session, SETTINGS, DEFINITIONS);
        expect(e.differences, session._id).toEqual([]);
        expect(e.agrees).toBe(true);
        for (const f of e.figures) {
          expect(f.value, `${session._id} ${f.figure}`).toEqual(session[f.figure] ?? null);
          // A figure an event set names that event's record, one of those read again.
          if (f.event) expect(records.some((r) => r.offset === f.record?.offset), `${session._id} ${f.figure}: its record`).toBe(true);
        }
        expect(e.figures.find((f) => f.figure === 'openedAt')?.record?.input?.type, `${session._id}: opened by a record`).toBeDefined();
        expect(e.steps.length).toBeGreaterThan(0);
        // Its revenue is the payments it names, each with the record that brought it, credited as the payments read model credits it.
        expect(e.payments.reduce((sum, p) => sum + p.grossCents, 0), `${session._id} revenue`).toBe(session.revenueCents);
        expect(e.payments.length, `${session._id} payments`).toBe(session.paymentCount);
        for (const p of e.payments) {
          const stored = m.payments.get(p.paymentId) ?? [...m.payments.values()].find((d) => d.paymentId === p.paymentId);
          expect(p.record?.input?.type, `${p.paymentId}: brought by a payment record`).toBe('chat.payment');
          expect(p.credits.session, `${p.paymentId}: session credit`).toBe(stored?.chatterId);
          expect(p.credits.sender, `${p.paymentId}: sender credit`).toEqual(stored?.models?.sender ?? null);
        }
      }
    }), params(60));
  });

  it('names what differs when the stored session is not what the records decide', () => {
    const c = fc.sample(conversationArb({ idleMs: IDLE_MS, lateMs: LATE_MS, minSteps: 5 }), { seed: 7, numRuns: 1 })[0];
    if (!c) throw new Error('no sample');
    const m = runChats([...c.arrivals, { kind: 'tick', at: c.maxAt + LATE_MS + 1 }], IDLE_MS, LATE_MS);
    const session = [...m.sessions.values()][0];
    if (!session) throw new Error('no session');
    const { records, partition } = chatRecords(m, session);
    const e = explainRecords(records, 'inbound', partition, session.chatKey, { ...session, messageCount: session.messageCount + 1 }, SETTINGS, DEFINITIONS);
    expect(e.agrees).toBe(false);
    expect(e.differences).toEqual([{ field: 'messageCount', stored: session.messageCount + 1, derived: session.messageCount }]);
    expect(FIGURES).toContain('messageCount');
  });
});
