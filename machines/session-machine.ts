// The per-chat session lifecycle as an XState v5 statechart: the states a manager names (no
// session yet; in a session, the fan awaiting a reply or answered; closed, and why), the
// inputs that move it, and the guards that decide. It is pure: no timers and no clock. A
// session closes when the chat's watermark (its latest record time, or a tick's clock, less
// the allowed lateness) passes its deadline, so live processing and replay take the same steps:
// an answered one as idle, one whose fan still waits only at the unanswered limit, as unanswered.
// Where a record goes by its own time is placement.ts; what opening and closing do is
// lifecycle.ts; the figures are session-figures.ts. step.ts drives the chart with XState's
// public transition(); docs/session-chart.md is drawn from this definition.
import { assign, setup } from 'xstate';
import type {
  ChatAccountInput, ChatAttributionInput, ChatReassignInput, ChatClockInput, ChatCloseInput, ChatMessageDeletedInput, ChatMessageInput, ChatPaymentInput,
  ChatPresenceInput, ChatSettleInput, ChatSignalInput, ChatSkippedInput, ChatTickInput, TimedRecord,
} from './chat-input.js';
import { emitNext, initialContext, tagged, type ChatContext, type ChatMachineInput, type Emit } from './chat-context.js';
import { announceLapse, closeSession, comeToRest, openSession, type Resting } from './lifecycle.js';
import {
  arrivalsIdleAt, heldFanMessage, lapseDue, hold, inOpenSpan, isLate, noteArrival, pastIdleDeadline, placeHeld, raiseWatermark, recordInSession, recordOutside, see,
} from './placement.js';
import { attributeReply, fanWaiting } from './session-figures.js';
import { noteCredits, type CreditedRecord } from './credit-models.js';
import { idTagOf, type SessionEvent } from './session-events.js';

export type { ChatContext, ChatMachineInput } from './chat-context.js';
export { dueAt, tickDue } from './placement.js';

/** The chart's events: one per kind of input, named as the domain names them (see step.ts). */
export type ChartEvent =
  | { readonly type: 'fan.message'; readonly input: ChatMessageInput }
  | { readonly type: 'human.reply'; readonly input: ChatMessageInput }
  | { readonly type: 'automated.send'; readonly input: ChatMessageInput }
  | { readonly type: 'payment'; readonly input: ChatPaymentInput }
  | { readonly type: 'fan.signal'; readonly input: ChatSignalInput }
  | { readonly type: 'reply.attributed'; readonly input: ChatAttributionInput }
  | { readonly type: 'message.deleted'; readonly input: ChatMessageDeletedInput }
  | { readonly type: 'account.changed'; readonly input: ChatAccountInput }
  | { readonly type: 'payment.reassigned'; readonly input: ChatReassignInput }
  | { readonly type: 'shift.clock'; readonly input: ChatClockInput }
  | { readonly type: 'presence'; readonly input: ChatPresenceInput }
  | { readonly type: 'clock.tick'; readonly input: ChatTickInput }
  | { readonly type: 'history.complete'; readonly input: ChatSettleInput }
  | { readonly type: 'close.forced'; readonly input: ChatCloseInput }
  | { readonly type: 'record.skipped'; readonly input: ChatSkippedInput };

/**
 * The chart's context: the stored ChatContext, plus a forced close that waits until the
 * records before its time are placed, the step's events, which wait in the outbox until the
 * chart comes to rest, and those events as they stay once it has (published), for step() to
 * take. All live only within one step: absent from a stored context (so step() hands XState
 * the stored object itself, uncopied), and step() drops them.
 */
export type ChartContext = ChatContext & {
  readonly closing?: ChatCloseInput | null;
  readonly outbox?: readonly SessionEvent[];
  readonly published?: readonly SessionEvent[];
};

// transition() builds a throwaway actor per call, and that actor eagerly makes an initial
// snapshot without input, which step() never reads. Entering the chart for it cost a third of
// a step (measured with bench/machines.ts), so without input the context factory stops it at
// once with this shared value: no Error is allocated and no stack captured. initialTransition()
// always passes input.
const NO_INPUT = Object.freeze({ reason: 'the session chart starts only with input (ChatMachineInput)' });

type Change = (ctx: ChatContext, event: ChartEvent, emit: Emit) => ChatContext;

/**
 * An action that changes the context with a pure helper; what the helper emits waits in the
 * outbox until the chart comes to rest (see rest()). One assign per transition: each XState
 * assign clones the snapshot, and a step is paid per webhook.
 */
function change(f: Change) {
  return assign<ChartContext, ChartEvent, undefined, ChartEvent, never>(({ context, event }) => {
    let out: SessionEvent[] | null = null;
    const next = f(context, event, (e) => {
      (out ??= context.outbox === undefined ? [] : context.outbox.slice()).push(e);
    });
    // `published` is named with the outbox so the context takes both keys in this full copy:
    // added later among rest()'s few fields, a new key made XState's copy of the context a
    // dictionary-mode (slow) V8 object for the rest of the step, which cost a step about a
    // quarter more (bench/machines.ts).
    return out === null ? next : { ...next, outbox: out, published: (next as ChartContext).published };
  });
}

/**
 * The chart has come to rest (the last eventless transition of the state it rests in): the
 * open session takes from that state whether the fan awaits a reply (comeToRest()), and the
 * step's events move from the outbox to `published`, where step() (eventsOf()) takes them.
 * Waiting until then is what lets each event go out once, as it stays. They leave through the
 * context, not as XState emit actions: with any action for transition() to return, V8 came to
 * pretenure the throwaway objects XState makes per call, and the collector's work doubled a
 * step's cost (bench/machines.ts); a plain assign returns none. `resting` is null where no
 * session is open.
 */
function rest(resting: Resting | null) {
  return assign<ChartContext, ChartEvent, undefined, ChartEvent, never>(({ context }) => {
    const outbox = context.outbox ?? [];
    const [session, events] = resting === null ? [context.session, outbox] : comeToRest(context, outbox, resting);
    // The chart rests once per step (resting changes nothing its guards read), but should it
    // ever rest twice, the events of both go out.
    const published = context.published === undefined ? events : [...context.published, ...events];
    // Only what changes: XState copies the rest of the context (one copy, not two).
    return { session, outbox: undefined, published };
  });
}

const timed = (e: ChartEvent): TimedRecord => e.input as TimedRecord;
/** A placed record, as the attribution models read it (a late one never reaches them). */
const credited = (e: ChartEvent): CreditedRecord => e.input as CreditedRecord;
const closeCommand = (e: ChartEvent): ChatCloseInput => e.input as ChatCloseInput;
/**
 * A close names the open session: by its id, or none (the open one). A close that names a session
 * of another definitions generation (an admin closed it while that generation was live, and this
 * one decides the chat again under other definitions, where the same conversation has other ids)
 * names the session open here if it shares time with the named one as the admin saw it (its
 * span): the same conversation. One that shares none (the admin's session had ended, and another
 * opened since) names nothing, as a close naming an ended session of this generation does.
 */
const namesSession = (ctx: ChatContext, cmd: ChatCloseInput | null): boolean => {
  if (cmd === null || ctx.session === null) return false;
  const open = ctx.session.summary;
  if (cmd.sessionId === null || cmd.sessionId === open.sessionId) return true;
  if (idTagOf(cmd.sessionId) === ctx.idTag || cmd.span === undefined) return false;
  return open.openedAt <= cmd.span.to && open.lastActivityAt >= cmd.span.from;
};

export const sessionMachine = setup({
  types: {
    context: {} as ChartContext,
    events: {} as ChartEvent,
    input: {} as ChatMachineInput | undefined,
  },
  guards: {
    /** Older than the watermark and outside the open session: its place is settled without it. */
    late: ({ context, event }) => isLate(context, timed(event)),
    withinOpenSession: ({ context, event }) => inOpenSpan(context, timed(event).at),
    /** The open session's deadline has passed with the fan answered: it closes as idle. */
    pastIdleDeadline: ({ context }) => pastIdleDeadline(context) && !fanWaiting(context.session),
    /** The deadline has passed with the fan still waiting: the wait reached the unanswered limit (deadlineOf). */
    pastUnansweredLimit: ({ context }) => pastIdleDeadline(context) && fanWaiting(context.session),
    fanMessageHeld: ({ context }) => heldFanMessage(context) !== null,
    /** A human reply placed now, at or after every fan message that waits: it answers them. */
    answersTheFan: ({ context, event }) => {
      const s = context.session;
      const at = timed(event).at;
      return s !== null && inOpenSpan(context, at) && (s.unanswered.length === 0 || at >= (s.unanswered[s.unanswered.length - 1] as number));
    },
    /** A fan message placed now, after the latest human reply: the fan waits from here. */
    fanMessageAfterReply: ({ context, event }) => {
      const s = context.session;
      const at = timed(event).at;
      const last = s?.replies[s.replies.length - 1];
      return s !== null && context.pending.length === 0 && inOpenSpan(context, at) && (last === undefined || at > last.at);
    },
    /** A fan message after the latest human reply; only a human reply clears it. */
    fanWaiting: ({ context }) => fanWaiting(context.session),
    answered: ({ context }) => !fanWaiting(context.session),
    /** Nothing arrived for the allowed lateness: a tick may settle the chat up to its clock. */
    arrivalsIdle: ({ context, event }) => arrivalsIdleAt(context, event.input.at),
    /** The open session's deadline has passed by the tick's clock, not yet said, and the watermark does not close it. */
    lapsedByClock: ({ context, event }) => {
      const due = lapseDue(context);
      return due !== null && due < event.input.at && !pastIdleDeadline(context);
    },
    namesOpenSession: ({ context, event }) => namesSession(context, closeCommand(event)),
    closeRequested: ({ context }) => context.closing != null,
    closeRequestedForOpenSession: ({ context }) => namesSession(context, context.closing ?? null),
    /** Events wait in the outbox and nothing is left to decide (no close waits for its records): the chart rests. */
    unpublished: ({ context }) => context.outbox !== undefined && context.closing == null,
  },
  // One action per transition: each XState assign clones the snapshot, and a step is paid per
  // webhook. Each composes the pure helpers in the order the placement rules need.
  actions: {
    /** Holds a fan message until placeHeld() can place it, and places what the watermark allows. */
    hold: change((c, e, emit) => placeHeld(hold(see(c, timed(e)), e.input as ChatMessageInput, emit), emit)),
    /** A reply, automated send or signal inside the open session's span. */
    record: change((c, e, emit) => placeHeld(noteCredits(recordInSession(see(c, timed(e)), timed(e), emit), credited(e), emit), emit)),
    /** A payment inside the open session's span: credited to the session and its last human reply at or before it (and under the other models, credit-models.ts). */
    credit: change((c, e, emit) => placeHeld(noteCredits(recordInSession(see(c, timed(e)), timed(e), emit), credited(e), emit), emit)),
    recordOutside: change((c, e, emit) => placeHeld(noteCredits(recordOutside(see(c, timed(e)), timed(e), emit, false), credited(e), emit), emit)),
    recordLate: change((c, e, emit) => recordOutside(noteArrival(c, timed(e)), timed(e), emit, true)),
    /** A later copy named a reply's chatter (first responder, last chatter and credits follow), brought a send's facts, or both. */
    refigure: change((c, e, emit) => noteCredits(attributeReply(noteArrival(c, e.input as ChatAttributionInput), e.input as ChatAttributionInput, emit), credited(e), emit)),
    open: change((c, _e, emit) => placeHeld(openSession(c, heldFanMessage(c) as ChatMessageInput, emit), emit)),
    closeIdle: change((c, _e, emit) => placeHeld(closeSession(c, 'idle', 0, null, emit), emit)),
    closeUnanswered: change((c, _e, emit) => placeHeld(closeSession(c, 'unanswered', 0, null, emit), emit)),
    // Everything before the command's time happened before it: settle up to it first.
    settleBeforeClose: change((c, e, emit) => ({ ...placeHeld(raiseWatermark(c, closeCommand(e).at), emit), closing: closeCommand(e) }) as ChatContext),
    closeForced: change((c0, _e, emit) => {
      const cmd = (c0 as ChartContext).closing as ChatCloseInput;
      const last = (c0.session as NonNullable<ChatContext['session']>).summary.lastActivityAt;
      const c = closeSession(c0, 'forced', cmd.at, cmd.requestedBy, emit);
      // A record from before the close that arrives after it can no longer join the closed session.
      return placeHeld({ ...raiseWatermark(c, Math.max(cmd.at, last) + 1), closing: null } as ChatContext, emit);
    }),
    // A close that names no open session changes nothing else, not even the watermark; one that
    // waited for the records before its time keeps what placing them changed.
    ignoreClose: assign(({ context }) => ({ ignoredCloseCount: context.ignoredCloseCount + 1, closing: null })),
    markDeleted: change((c, e, emit) => {
      const d = e.input as ChatMessageDeletedInput;
      return emitNext(c, emit, 'MessageDeleted', d.at, { messageId: d.messageId, deletedAt: d.at });
    }),
    noteAccount: change((c, e, emit) => {
      const a = e.input as ChatAccountInput;
      return emitNext(c, emit, 'AccountStatusChanged', a.at, { event: a.event, state: a.state });
    }),
    /** A manager moved a payment's credit: the session and its figures stay; the read models credit the chatter named. */
    noteReassign: change((c, e, emit) => {
      const r = e.input as ChatReassignInput;
      return emitNext(c, emit, 'PaymentReassigned', r.at, { paymentId: r.paymentId, chatterId: r.chatterId, reason: r.reason, requestedBy: r.requestedBy });
    }),
    /**
     * A chatter clocks in or out (its clock chat): clocking in twice, or out while out, changes
     * nothing (the route refuses both first; a redelivered or raced command lands here).
     */
    noteClock: change((c, e, emit) => {
      const k = e.input as ChatClockInput;
      const open = c.clockIn ?? null;
      // An interval that ended by idling is closed where it ended, by the command that says so.
      const idled = open !== null && k.idleSince !== undefined && k.idleSince < k.at;
      const closeOpen = (ctx: ChatContext, at: number, automatic: boolean): ChatContext => (open === null ? ctx
        : { ...emitNext(ctx, emit, 'ChatterClockedOut', Math.max(at, open.at), { chatterId: k.chatterId, intervalId: open.eventId, clockedInAt: open.at, requestedBy: k.requestedBy, automatic }), clockIn: null });
      if (k.action === 'in') {
        if (open !== null && !idled) return c;
        const closed = idled ? closeOpen(c, k.idleSince as number, true) : c;
        const next = emitNext(closed, emit, 'ChatterClockedIn', k.at, { chatterId: k.chatterId, requestedBy: k.requestedBy });
        return { ...next, clockIn: { at: k.at, eventId: tagged(c, `${c.chatKey}:${next.seq}`) } };
      }
      return closeOpen(c, idled ? (k.idleSince as number) : k.at, idled);
    }),
    notePresence: change((c, e) => {
      const p = e.input as ChatPresenceInput;
      return c.presenceAt === null || p.at >= c.presenceAt ? { ...c, presence: p.presence, presenceAt: p.at } : c;
    }),
    countSkipped: assign(({ context }) => ({ skippedCount: context.skippedCount + 1 })),
    /** A tick's clock less the lateness: nothing older is still coming; a session it leaves open past its deadline is said to have lapsed. */
    advanceClock: change((c, e, emit) => announceLapse(placeHeld(raiseWatermark(c, e.input.at - c.lateMs), emit), e.input.at, emit)),
    /** The tick's clock has passed the open session's deadline, which the lateness still keeps open. */
    noteLapse: change((c, e, emit) => announceLapse(c, e.input.at, emit)),
    /** The chat's bulk history is all in: settle it as a tick would, without waiting for arrivals to go idle. */
    settleHistory: change((c, e, emit) => placeHeld(raiseWatermark(c, (e.input as ChatSettleInput).at - c.lateMs), emit)),
    /** At rest with the fan waiting for a reply: at its deadline it closes as unanswered (pastUnansweredLimit). */
    restAwaiting: rest({ awaiting: true, closesAs: 'unanswered' }),
    /** At rest with every fan message answered: at its deadline it closes as idle (pastIdleDeadline). */
    restAnswered: rest({ awaiting: false, closesAs: 'idle' }),
    /** At rest with no session open: the events go out as they are. */
    publish: rest(null),
  },
}).createMachine({
  id: 'chat',
  context: ({ input }) => {
    if (input === undefined) throw NO_INPUT;
    return initialContext(input);
  },
  initial: 'noSession',
  on: {
    'fan.message': [
      { guard: 'late', actions: 'recordLate' },
      { actions: 'hold' },
    ],
    'human.reply': [
      { guard: 'late', actions: 'recordLate' },
      { guard: 'withinOpenSession', actions: 'record' },
      { actions: 'recordOutside' },
    ],
    'automated.send': [
      { guard: 'late', actions: 'recordLate' },
      { guard: 'withinOpenSession', actions: 'record' },
      { actions: 'recordOutside' },
    ],
    payment: [
      { guard: 'late', actions: 'recordLate' },
      { guard: 'withinOpenSession', actions: 'credit' },
      { actions: 'recordOutside' },
    ],
    'fan.signal': [
      { guard: 'late', actions: 'recordLate' },
      { guard: 'withinOpenSession', actions: 'record' },
      { actions: 'recordOutside' },
    ],
    'reply.attributed': { actions: 'refigure' },
    'message.deleted': { actions: 'markDeleted' },
    'account.changed': { actions: 'noteAccount' },
    'payment.reassigned': { actions: 'noteReassign' },
    'shift.clock': { actions: 'noteClock' },
    presence: { actions: 'notePresence' },
    'clock.tick': [
      { guard: 'arrivalsIdle', actions: 'advanceClock' },
      { guard: 'lapsedByClock', actions: 'noteLapse' },
    ],
    'history.complete': { actions: 'settleHistory' },
    'close.forced': { actions: 'ignoreClose' },
    'record.skipped': { actions: 'countSkipped' },
  },
  states: {
    noSession: {
      description: 'No session open yet',
      always: [
        { guard: 'fanMessageHeld', target: 'session', actions: 'open' },
        { guard: 'unpublished', actions: 'publish' },
      ],
    },
    session: {
      description: 'A session is open',
      initial: 'awaiting',
      on: {
        'close.forced': [
          { guard: 'namesOpenSession', actions: 'settleBeforeClose' },
          { actions: 'ignoreClose' },
        ],
      },
      // Checked after the transitions of awaiting and answered, so placement has settled first.
      // Those say where a reply or a fan message usually leads; placing held records can change
      // that, and their eventless transitions follow what the records say.
      always: [
        { guard: 'closeRequestedForOpenSession', target: 'closed.forced', actions: 'closeForced' },
        { guard: 'closeRequested', actions: 'ignoreClose' },
      ],
      states: {
        awaiting: {
          description: 'The fan waits for a human reply',
          on: { 'human.reply': { guard: 'answersTheFan', target: 'answered', actions: 'record' } },
          // Never closed as idle: while the fan waits, the deadline is the unanswered limit
          // (deadlineOf). A placement that answers the fan moves to answered, which decides.
          // Last, once nothing else moves the chart: it rests here, and says so (rest()).
          always: [
            { guard: 'pastUnansweredLimit', target: '#chat.closed.unanswered', actions: 'closeUnanswered' },
            { guard: 'answered', target: 'answered' },
            { guard: 'unpublished', actions: 'restAwaiting' },
          ],
        },
        answered: {
          description: 'Every fan message has a human reply after it',
          on: { 'fan.message': { guard: 'fanMessageAfterReply', target: 'awaiting', actions: 'hold' } },
          always: [
            { guard: 'pastIdleDeadline', target: '#chat.closed.idle', actions: 'closeIdle' },
            { guard: 'fanWaiting', target: 'awaiting' },
            { guard: 'unpublished', actions: 'restAnswered' },
          ],
        },
      },
    },
    closed: {
      description: 'The last session closed',
      initial: 'idle',
      always: [
        { guard: 'fanMessageHeld', target: 'session', actions: 'open' },
        { guard: 'closeRequested', actions: 'ignoreClose' },
        { guard: 'unpublished', actions: 'publish' },
      ],
      states: {
        idle: { description: 'Nothing happened for the idle gap after the fan was answered' },
        unanswered: { description: 'The fan waited for a reply until the unanswered limit' },
        forced: { description: 'Closed by an admin' },
      },
    },
  },
});

export type SessionMachine = typeof sessionMachine;
