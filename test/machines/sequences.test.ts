// Drives the session machine with every sequence in fixtures/sequences.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatInput } from '../../machines/chat-input.js';
import { sessionAfter, type SessionEvent, type SessionSummary } from '../../machines/session-events.js';
import { initialChatState, step } from '../../machines/step.js';
import { MemoryLedger } from '../../machines/ledger.js';

type FixtureInput = Record<string, unknown> & { type?: string; atSec: number };

interface Sequence {
  description: string;
  start: string;
  idleSec: number;
  /** Allowed lateness; 300 s when absent. */
  lateSec?: number;
  inputs: FixtureInput[];
  expectedEvents: string[];
  expectedSessions: (Partial<SessionSummary> & { closedAtSec?: number })[];
  expectedPayments?: { paymentId: string; chatterId: string | null; sessionIndex: number | null }[];
}

const dir = join(import.meta.dirname, '../../fixtures/sequences');
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

/** Fixture inputs are terse: messages by default, times in seconds after `start`. */
function toInput(i: number, f: FixtureInput, t0: number): ChatInput {
  const { type = 'chat.message', atSec, ...rest } = f;
  // `at` given outright (a tick's wall-clock time) wins over `atSec`.
  const base = { dedupeKey: `evt_${i}`, at: t0 + atSec * 1000 };
  if (type === 'chat.message') return { ...base, type, text: '', priceCents: 0, chatterId: null, ...rest } as ChatInput;
  return { ...base, type, ...rest } as ChatInput;
}

describe('session machine on fixture sequences', () => {
  it('has fixtures to run', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('%s', (file) => {
    const seq = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Sequence;
    const t0 = Date.parse(seq.start);
    let state = initialChatState({ accountId: 'acct_f', chatId: '1', idleMs: seq.idleSec * 1000, lateMs: (seq.lateSec ?? 300) * 1000 });
    const events: SessionEvent[] = [];
    const ledger = new MemoryLedger();
    seq.inputs.forEach((inp, i) => {
      const admitted = ledger.admit(toInput(i, inp, t0));
      if (!admitted) return;
      const r = step(state, admitted);
      state = r.state;
      events.push(...r.events);
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
