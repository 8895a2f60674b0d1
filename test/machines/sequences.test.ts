// Drives the session machine with every sequence in fixtures/sequences.
import { describe, expect, it } from 'vitest';
import { sessionAfter, type SessionEvent, type SessionSummary } from '../../machines/session-events.js';
import { fixtureFiles, fixtureInput, loadSequence } from '../support/fixture-sequences.js';
import { initialChatState, step } from '../../machines/step.js';
import { MemoryLedger } from '../../machines/ledger.js';

describe('session machine on fixture sequences', () => {
  it('has fixtures to run', () => {
    expect(fixtureFiles.length).toBeGreaterThan(0);
  });

  it.each(fixtureFiles)('%s', (file) => {
    const seq = loadSequence(file);
    const t0 = Date.parse(seq.start);
    let state = initialChatState({ accountId: 'acct_f', chatId: '1', idleMs: seq.idleSec * 1000, lateMs: (seq.lateSec ?? 300) * 1000 });
    const events: SessionEvent[] = [];
    const ledger = new MemoryLedger();
    seq.inputs.forEach((inp, i) => {
      const admitted = ledger.admit(fixtureInput(i, inp, t0));
      if (!admitted) return;
      const r = step(state, admitted);
      state = r.state;
      events.push(...r.events);
      // The stored state value says what the open session's summary says: the inbox reads either.
      const open = state.context.session;
      if (open) expect(state.value, `after input ${i}`).toEqual({ session: open.summary.awaiting ? 'awaiting' : 'answered' });
      else expect(state.value === 'noSession' || typeof state.value === 'object' && 'closed' in state.value, `after input ${i}`).toBe(true);
    });
    expect(events.map((e) => e.type)).toEqual(seq.expectedEvents);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    // The last summary each session reached, in order of opening.
    const last = new Map<string, SessionSummary>();
    for (const e of events) {
      const s = sessionAfter(e);
      if (s) last.set(s.sessionId, s);
    }
    const sessions = [...last.values()];
    expect(sessions).toHaveLength(seq.expectedSessions.length);
    seq.expectedSessions.forEach((want, i) => {
      const { closedAtSec, ...fields } = want;
      expect(sessions[i]).toMatchObject(fields);
      if (closedAtSec !== undefined) expect(sessions[i]?.closedAt).toBe(t0 + closedAtSec * 1000);
    });
    if (seq.expectedPayments) {
      const payments = events.flatMap((e) => (e.type === 'PaymentRecorded' ? [e.data] : []));
      expect(payments.map((p) => ({
        paymentId: p.paymentId,
        chatterId: p.chatterId,
        sessionIndex: p.sessionId === null ? null : sessions.findIndex((s) => s.sessionId === p.sessionId),
      }))).toEqual(seq.expectedPayments);
    }
  });
});
