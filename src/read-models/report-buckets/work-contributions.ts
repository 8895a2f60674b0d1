// What the shift figures need of each session and payment, folded per account and UTC day into a
// bucket document of its own (family `work`, keys.ts). A shift's figures are over the time its
// chatter was clocked in, which is known only where they are read (the automatic clock-out
// follows from replies in other chats), so they cannot be summed ahead the way the SLA figures
// are. What can be kept ahead is the few facts per session and payment that the figures are
// worked out from: reading a week then reads one small document per account and day, not every
// session and payment document of the week (issue 51: the week's report read ~1,900 sessions
// and their payments on every call, half its time).
//
// The facts are kept as numeric fields so that they fold like every other bucket figure: the
// projector adds a document's new contributions and takes away its old ones, so a field holds
// the value the document has now, and a session that moved out of a day leaves zeros behind
// (read as absent). Per session, placed by its first fan message:
//   ws.<key>.t  first fan message at (ms)       ws.<key>.e  its wait ended (first reply, or the close without one; absent: waiting)
//   ws.<key>.a  1: answered   ws.<key>.r  first-response seconds (0 and below are seconds too)   ws.<key>.c.<chatter key>  1 for the first responder
// Per payment, placed by when it was paid:
//   wp.<key>.t  paid at   wp.<key>.g  gross cents   wp.<key>.l  1: late (credited to nobody)
//   wp.<key>.o.<chatter key>  a manager's reassignment   wp.<key>.{s,n,v}.<chatter key>  its credit under session, sender, converter
// Per clock interval, placed by its clock-in (an interval lasts a day at most, clocked-time.ts, so
// the day before a window holds all that began before it and overlaps it):
//   wi.<key>.i  clocked in at   wi.<key>.o  clocked out at (absent: not yet)   wi.<key>.a  1: that clock-out was automatic
//   wi.<key>.c.<chatter key>  1 for its chatter
// This module: what a document contributes to them (contributions.ts adds it); work-digest.ts reads them.
import type { ClockIntervalDoc } from '../clock-intervals/projection.js';
import { CREDIT_MODELS, creditedChatter, type CreditModel, type PaymentDoc } from '../payments/projection.js';
import type { SessionDoc } from '../sessions/projection.js';
import type { Increment } from './increment.js';
import { chatterKey } from './keys.js';

const keyOf = (id: string): string => `k${Buffer.from(id, 'utf8').toString('base64url')}`;

/** The letter each model's credit is kept under (work-digest.ts reads them back). */
export const MODEL_LETTER: Readonly<Record<CreditModel, 's' | 'n' | 'v'>> = { session: 's', sender: 'n', converter: 'v' };

/** One document's facts: fields under `base` of its account's day of `at`, as increments. */
function factsOf(accountId: string, at: number, base: string): { readonly out: Increment[]; put(field: string, amount: number): void } {
  const out: Increment[] = [];
  return { out, put: (field, amount) => { out.push({ accountId, at, field: `${base}.${field}`, amount }); } };
}

export function sessionWork(s: SessionDoc): Increment[] {
  if (s.firstFanMessageAt === null) return [];
  const f = factsOf(s.accountId, s.firstFanMessageAt, `ws.${keyOf(s._id)}`);
  f.put('t', s.firstFanMessageAt);
  const end = s.firstResponseAt ?? (s.status === 'closed' && s.closedAt !== null ? s.closedAt : null);
  if (end !== null) f.put('e', end);
  if (s.firstResponseSec !== null) {
    // Answered is its own field: a reply stamped before the fan's message gives seconds of 0 or below.
    f.put('a', 1);
    f.put('r', s.firstResponseSec);
  }
  if (s.firstResponderId !== null) f.put(`c.${chatterKey(s.firstResponderId)}`, 1);
  return f.out;
}

export function paymentWork(p: PaymentDoc): Increment[] {
  const f = factsOf(p.accountId, p.paidAt, `wp.${keyOf(p._id)}`);
  f.put('t', p.paidAt);
  f.put('g', p.grossCents);
  if (p.late === true) f.put('l', 1);
  const override = p.override?.chatterId ?? null;
  if (override !== null) f.put(`o.${chatterKey(override)}`, 1);
  for (const model of CREDIT_MODELS) {
    const credited = creditedChatter(p, model);
    if (credited !== null) f.put(`${MODEL_LETTER[model]}.${chatterKey(credited)}`, 1);
  }
  return f.out;
}

export function intervalWork(d: ClockIntervalDoc): Increment[] {
  const f = factsOf(d.accountId, d.inAt, `wi.${keyOf(d._id)}`);
  f.put('i', d.inAt);
  f.put(`c.${chatterKey(d.chatterId)}`, 1);
  if (d.outAt !== null) f.put('o', d.outAt);
  if (d.outAutomatic) f.put('a', 1);
  return f.out;
}
