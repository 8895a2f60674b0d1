// Drives the session machine with every sequence in fixtures/sequences.
import { describe, expect, it } from 'vitest';
import { sessionAfter, type SessionEvent, type SessionSummary } from '../../machines/session-events.js';
import { fixtureFiles, fixtureInput, loadSequence } from '../support/fixture-sequences.js';
import { initialChatState, step } from '../../machines/step.js';
import { MemoryLedger } from '../support/memory-ledger.js';
import { foldChat, type ChatDoc } from '../../src/read-models/chats/projection.js';
import { foldSession, type SessionDoc } from '../../src/read-models/sessions/projection.js';

describe('session machine on fixture sequences', () => {
  it('has fixtures to run', () => {
    expect(fixtureFiles.length).toBeGreaterThan(0);
  });

  it.each(fixtureFiles)('%s', (file) => {
    const seq = loadSequence(file);
    const t0 = Date.parse(seq.start);
    let state = initialChatState({ accountId: 'acct_f', chatId: '1', idleMs: seq.idleSec * 1000, lateMs: (seq.lateSec ?? 300) * 1000, unansweredMs: 86_400_000 });
    const events: SessionEvent[] = [];
    const ledger = new MemoryLedger();
    let chat: ChatDoc | undefined;
    const docs = new Map<string, SessionDoc>();
    seq.inputs.forEach((inp, i) => {
      const admitted = ledger.dedupe(fixtureInput(i, inp, t0));
      if (!admitted) return;
      const r = step(state, admitted);
      state = r.state;
      events.push(...r.events);
      // What the read models make of the events agrees with the stored state value after every
      // step: the chat and its open session await a reply exactly when the chart is in
      // session.awaiting, and the priority inbox holds the session exactly then.
      for (const e of r.events) {
        chat = foldChat(chat, e) ?? chat;
        const s = sessionAfter(e);
        if (s) docs.set(s.sessionId, foldSession(docs.get(s.sessionId), e) ?? (docs.get(s.sessionId) as SessionDoc));
      }
      const v = state.value;
      const inSession = typeof v === 'object' && 'session' in v;
      const awaiting = inSession && v.session === 'awaiting';
      expect(inSession || v === 'noSession' || typeof v === 'object' && 'closed' in v, `after input ${i}`).toBe(true);
      if (!chat) return;
      expect(chat.awaiting, `chat after input ${i}`).toBe(awaiting);
      expect(chat.openSessionId, `after input ${i}`).toBe(inSession ? state.context.session?.summary.sessionId : null);
      const open = chat.openSessionId === null ? undefined : docs.get(chat.openSessionId);
      if (inSession) {
        expect(open?.awaiting, `open session after input ${i}`).toBe(awaiting);
        expect(open?.priorityAt !== null, `inbox after input ${i}`).toBe(awaiting);
      }
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
