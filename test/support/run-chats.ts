// Runs arrivals through the real ledger rule, session machine and folds, in memory, the way
// the processor and projector do (a tick steps only the chats it is due for), and returns the
// read models. For property tests that need thousands of cases, so no log or store.
import type { ChatInput } from '../../machines/chat-input.js';
import { MemoryLedger } from '../../machines/ledger.js';
import { tickDue } from '../../machines/session-machine.js';
import { initialChatState, step, type ChatState } from '../../machines/step.js';
import type { SessionEvent } from '../../machines/session-events.js';
import type { Doc } from '../../src/adapters/store/store.js';
import type { AccountStatsDoc } from '../../src/projector/models/account-stats/projection.js';
import type { ChatDoc } from '../../src/projector/models/chats/projection.js';
import { PROJECTIONS } from '../../src/projector/models/index.js';
import type { MessageDoc } from '../../src/projector/models/messages/projection.js';
import type { PaymentDoc } from '../../src/projector/models/payments/projection.js';
import type { Positioned } from '../../src/projector/models/projection.js';
import type { ReadModel } from '../../src/projector/models/names.js';
import { foldEvent, targetsOf } from '../../src/projector/models/runner.js';
import type { SessionDoc } from '../../src/projector/models/sessions/projection.js';
import type { Arrival } from './conversations.js';
import type { Fact } from './reference-model.js';

export interface Models {
  sessions: Map<string, SessionDoc>;
  chats: Map<string, ChatDoc>;
  messages: Map<string, MessageDoc>;
  payments: Map<string, PaymentDoc>;
  accountStats: Map<string, AccountStatsDoc>;
  states: Map<string, ChatState>;
  events: SessionEvent[];
  /** The same events with the positions the projector would see (source = arrival number, all partition 0). */
  positioned: Positioned[];
}

export function inputOf(f: Fact, key: string): ChatInput {
  switch (f.kind) {
    case 'message':
      return { type: 'chat.message', dedupeKey: key, at: f.at, messageId: f.id, sender: f.sender, text: `m${f.id}`, priceCents: 0, chatterId: f.chatter, ...(f.spend !== undefined ? { fanSpendCents: f.spend } : {}) };
    case 'payment':
      return { type: 'chat.payment', dedupeKey: key, at: f.at, paymentId: f.id, kind: 'tip', grossCents: f.cents, netCents: f.cents };
    case 'close':
      return { type: 'chat.close', dedupeKey: key, at: f.at, sessionId: null, requestedBy: 'admin' };
  }
}

export function runChats(arrivals: readonly Arrival[], idleMs: number, lateMs: number): Models {
  const m: Models = { sessions: new Map(), chats: new Map(), messages: new Map(), payments: new Map(), accountStats: new Map(), states: new Map(), events: [], positioned: [] };
  const ledgers = new Map<string, MemoryLedger>();
  let offset = 0;
  const fold = (events: readonly SessionEvent[], at: number): void => {
    for (const event of events) {
      const p: Positioned = { event: { ...event, source: { partition: 0, offset: at } }, partition: 0, offset: at };
      m.events.push(event);
      m.positioned.push({ ...p, offset: m.positioned.length });
      const models = { sessions: m.sessions, chats: m.chats, messages: m.messages, payments: m.payments, account_stats: m.accountStats } as const;
      const docsOf = (model: ReadModel) => models[model] as unknown as Map<string, Doc>;
      const { nexts } = foldEvent(targetsOf(PROJECTIONS, p), (model, id) => docsOf(model).get(id), p);
      for (const [t, next] of nexts) docsOf(t.projection.name).set(t.id, next);
    }
  };
  for (const a of arrivals) {
    offset++;
    if (a.kind === 'tick') {
      for (const [key, state] of [...m.states].sort(([x], [y]) => (x < y ? -1 : 1))) {
        const due = tickDue(state.context);
        if (due === null || due >= a.at) continue;
        const r = step(state, { type: 'chat.tick', dedupeKey: `tick_${offset}`, at: a.at });
        m.states.set(key, r.state);
        fold(r.events, offset);
      }
      continue;
    }
    const f = a.fact;
    const key = `${f.account}:${f.chat}`;
    const ledger = ledgers.get(key) ?? new MemoryLedger();
    ledgers.set(key, ledger);
    const input = ledger.admit(inputOf(f, a.key));
    if (!input) continue;
    const state = m.states.get(key) ?? initialChatState({ accountId: f.account, chatId: f.chat, idleMs, lateMs });
    const r = step(state, input);
    m.states.set(key, r.state);
    fold(r.events, offset);
  }
  return m;
}
