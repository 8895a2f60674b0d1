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

export function sessionWork(s: SessionDoc): Increment[] {
  if (s.firstFanMessageAt === null) return [];
  const at = s.firstFanMessageAt;
  const base = `ws.${keyOf(s._id)}`;
  const out: Increment[] = [{ accountId: s.accountId, at, field: `${base}.t`, amount: at }];
  const end = s.firstResponseAt ?? (s.status === 'closed' && s.closedAt !== null ? s.closedAt : null);
  if (end !== null) out.push({ accountId: s.accountId, at, field: `${base}.e`, amount: end });
  if (s.firstResponseSec !== null) {
    // Answered is its own field: a reply stamped before the fan's message gives seconds of 0 or below.
    out.push({ accountId: s.accountId, at, field: `${base}.a`, amount: 1 });
    out.push({ accountId: s.accountId, at, field: `${base}.r`, amount: s.firstResponseSec });
  }
  if (s.firstResponderId !== null) out.push({ accountId: s.accountId, at, field: `${base}.c.${chatterKey(s.firstResponderId)}`, amount: 1 });
  return out;
}

export function paymentWork(p: PaymentDoc): Increment[] {
  const at = p.paidAt;
  const base = `wp.${keyOf(p._id)}`;
  const out: Increment[] = [
    { accountId: p.accountId, at, field: `${base}.t`, amount: at },
    { accountId: p.accountId, at, field: `${base}.g`, amount: p.grossCents },
  ];
  if (p.late === true) out.push({ accountId: p.accountId, at, field: `${base}.l`, amount: 1 });
  const override = p.override?.chatterId ?? null;
  if (override !== null) out.push({ accountId: p.accountId, at, field: `${base}.o.${chatterKey(override)}`, amount: 1 });
  for (const model of CREDIT_MODELS) {
    const credited = creditedChatter(p, model);
    if (credited !== null) out.push({ accountId: p.accountId, at, field: `${base}.${MODEL_LETTER[model]}.${chatterKey(credited)}`, amount: 1 });
  }
  return out;
}

export function intervalWork(d: ClockIntervalDoc): Increment[] {
  const at = d.inAt;
  const base = `wi.${keyOf(d._id)}`;
  const out: Increment[] = [
    { accountId: d.accountId, at, field: `${base}.i`, amount: at },
    { accountId: d.accountId, at, field: `${base}.c.${chatterKey(d.chatterId)}`, amount: 1 },
  ];
  if (d.outAt !== null) out.push({ accountId: d.accountId, at, field: `${base}.o`, amount: d.outAt });
  if (d.outAutomatic) out.push({ accountId: d.accountId, at, field: `${base}.a`, amount: 1 });
  return out;
}
