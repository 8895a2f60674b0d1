// Drives the session machine with every sequence in fixtures/sequences.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatMessageInput, MessageSender } from '../../machines/chat-input.js';
import type { SessionEvent, SessionSummary } from '../../machines/session-events.js';
import { initialChatState, step } from '../../machines/step.js';

interface Sequence {
  description: string;
  start: string;
  idleSec: number;
  inputs: { sender: MessageSender; atSec: number; messageId: string; dedupeKey?: string; chatterId?: string }[];
  expectedEvents: string[];
  expectedSessions: (Partial<SessionSummary> & { closedAtSec?: number })[];
}

const dir = join(import.meta.dirname, '../../fixtures/sequences');
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

describe('session machine on fixture sequences', () => {
  it('has fixtures to run', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('%s', (file) => {
    const seq = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Sequence;
    const t0 = Date.parse(seq.start);
    let state = initialChatState({ accountId: 'acct_f', chatId: '1', idleMs: seq.idleSec * 1000 });
    const events: SessionEvent[] = [];
    for (const [i, inp] of seq.inputs.entries()) {
      const input: ChatMessageInput = {
        type: 'chat.message', dedupeKey: inp.dedupeKey ?? `evt_${i}`, messageId: inp.messageId, sender: inp.sender,
        at: t0 + inp.atSec * 1000, text: '', priceCents: 0, chatterId: inp.chatterId ?? null,
      };
      const r = step(state, input);
      state = r.state;
      events.push(...r.events);
    }
    expect(events.map((e) => e.type)).toEqual(seq.expectedEvents);
    // The last summary each session reached, in order of opening.
    const last = new Map<string, SessionSummary>();
    for (const e of events) {
      const s = e.type === 'MessageRecorded' ? e.data.session : e.data.session;
      if (s) last.set(s.sessionId, s);
    }
    const sessions = [...last.values()];
    expect(sessions).toHaveLength(seq.expectedSessions.length);
    seq.expectedSessions.forEach((want, i) => {
      const { closedAtSec, ...fields } = want;
      expect(sessions[i]).toMatchObject(fields);
      if (closedAtSec !== undefined) expect(sessions[i]?.closedAt).toBe(t0 + closedAtSec * 1000);
    });
  });
});
