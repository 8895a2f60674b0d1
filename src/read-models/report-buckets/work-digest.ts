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
import type { Filter } from '../../adapters/store/store.js';
import { MAX_CLOCKED_MS } from '../../domain/clocked-time.js';
import type { CreditablePayment } from '../../domain/shift-credit.js';
import type { ClockIntervalDoc } from '../clock-intervals/projection.js';
import { CREDIT_MODELS, creditedChatter, type CreditModel, type PaymentDoc } from '../payments/projection.js';
import type { ReadModelCollections } from '../read-model-set.js';
import type { SessionDoc } from '../sessions/projection.js';
import type { Increment } from './contributions.js';
import type { ReportBucketDoc } from './document.js';
import { chatterIdOf, chatterKey, idRange } from './keys.js';
import { accountTest } from '../account-test.js';

const keyOf = (id: string): string => `k${Buffer.from(id, 'utf8').toString('base64url')}`;

const MODEL_LETTER: Readonly<Record<CreditModel, 's' | 'n' | 'v'>> = { session: 's', sender: 'n', converter: 'v' };

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

/** A session as the shift figures and coverage see it. */
export interface WorkSessionFacts {
  readonly accountId: string;
  readonly firstFanMessageAt: number;
  /** When its fan's wait ended: the first reply, or the close without one; null: waiting still. */
  readonly waitEnd: number | null;
  readonly firstResponderId: string | null;
  readonly firstResponseSec: number | null;
}

/** A payment as the shift figures see it: enough for its credit under every model. */
export interface WorkPaymentFacts extends CreditablePayment {
  /** Who each model other than `shift` credits (null: nobody). */
  readonly credited: Readonly<Record<CreditModel, string | null>>;
}

/** A clock interval as stored (its automatic clock-out, if still open, not worked out yet: clock-intervals/queries.ts). */
export interface WorkInterval {
  readonly id: string;
  readonly accountId: string;
  readonly chatterId: string;
  readonly inAt: number;
  readonly outAt: number | null;
  readonly outAutomatic: boolean;
}

interface Decoded {
  readonly sessions: readonly WorkSessionFacts[];
  readonly payments: readonly WorkPaymentFacts[];
  readonly intervals: readonly WorkInterval[];
}

type Fields = Readonly<Record<string, unknown>>;

const num = (f: Fields, k: string): number => (typeof f[k] === 'number' ? (f[k] as number) : 0);

/** The chatter whose key holds a positive count under `f[k]` (one at most as a document stands), or null. */
function chatterIn(f: Fields, k: string): string | null {
  const m = f[k];
  if (typeof m !== 'object' || m === null) return null;
  for (const [key, n] of Object.entries(m)) if (typeof n === 'number' && n > 0) return chatterIdOf(key);
  return null;
}

function decode(doc: ReportBucketDoc & { ws?: Fields; wp?: Fields; wi?: Fields }): Decoded {
  const sessions: WorkSessionFacts[] = [];
  const payments: WorkPaymentFacts[] = [];
  const intervals: WorkInterval[] = [];
  for (const [key, v] of Object.entries(doc.wi ?? {})) {
    const f = v as Fields;
    const i = num(f, 'i');
    const chatterId = chatterIn(f, 'c');
    if (i === 0 || chatterId === null) continue;
    const o = num(f, 'o');
    intervals.push({ id: key, accountId: doc.accountId, chatterId, inAt: i, outAt: o === 0 ? null : o, outAutomatic: num(f, 'a') > 0 });
  }
  for (const v of Object.values(doc.ws ?? {})) {
    const f = v as Fields;
    const t = num(f, 't');
    if (t === 0) continue;
    const e = num(f, 'e');
    sessions.push({ accountId: doc.accountId, firstFanMessageAt: t, waitEnd: e === 0 ? null : e, firstResponderId: chatterIn(f, 'c'), firstResponseSec: num(f, 'a') > 0 ? num(f, 'r') : null });
  }
  for (const v of Object.values(doc.wp ?? {})) {
    const f = v as Fields;
    const t = num(f, 't');
    if (t === 0) continue;
    payments.push({
      accountId: doc.accountId, paidAt: t, grossCents: num(f, 'g'), uncredited: num(f, 'l') > 0, overrideChatterId: chatterIn(f, 'o'),
      credited: { session: chatterIn(f, 's'), sender: chatterIn(f, 'n'), converter: chatterIn(f, 'v') },
    });
  }
  // In time order within the day: a window's days read in order then give each account's
  // sessions and payments in time order, with no sort per request.
  sessions.sort((a, b) => a.firstFanMessageAt - b.firstFanMessageAt);
  payments.sort((a, b) => a.paidAt - b.paidAt);
  return { sessions, payments, intervals };
}

/**
 * Decoded per document object: the embedded store hands out the same object while a document is
 * unchanged (shared reads), so the settled days of a polled week are decoded once.
 */
const decoded = new WeakMap<object, Decoded>();

const DAY = 86_400_000;

/**
 * The sessions whose first fan message and the payments paid in [from, to), and the clock
 * intervals begun before `to` that may overlap it, of the accounts `inScope` selects, from the
 * window's day documents (and the day before it, for the intervals). Each account's sessions come
 * in time order, and so do its payments.
 */
export interface WorkInWindow {
  readonly sessions: WorkSessionFacts[];
  readonly payments: WorkPaymentFacts[];
  readonly intervals: WorkInterval[];
  /**
   * The day document an account's facts of a day were read from (undefined: none), as the store
   * handed it out: the embedded store hands out the same object while a document is unchanged,
   * so a figure worked out from some days can be kept while they stay the same objects.
   */
  readonly dayDoc: (accountId: string, at: number) => object | undefined;
}

export async function workIn(rm: ReadModelCollections, inScope: Filter, from: number, to: number): Promise<WorkInWindow> {
  const lo = Number.isFinite(from) ? Math.floor((from - MAX_CLOCKED_MS) / DAY) : Number.MIN_SAFE_INTEGER;
  const hi = Number.isFinite(to) ? Math.floor((to - 1) / DAY) + 1 : Number.MAX_SAFE_INTEGER;
  // By `_id` alone (a shared read), the accounts picked after: a range of days is a range of ids.
  const docs = await rm.report_buckets.find({ _id: idRange('d', lo, hi, 'work') }, { shared: true });
  const visible = accountTest(inScope);
  const sessions: WorkSessionFacts[] = [];
  const payments: WorkPaymentFacts[] = [];
  const intervals: WorkInterval[] = [];
  const earliest = from - MAX_CLOCKED_MS;
  // Per account, per day index: asked a few times for each of a window's thousand shifts.
  const byDay = new Map<string, Map<number, object>>();
  for (const doc of docs) {
    if (!visible(doc.accountId)) continue;
    let days = byDay.get(doc.accountId);
    if (!days) byDay.set(doc.accountId, (days = new Map()));
    days.set(Math.floor((doc.start ?? 0) / DAY), doc);
    let d = decoded.get(doc);
    if (!d) decoded.set(doc, (d = decode(doc)));
    for (const s of d.sessions) if (s.firstFanMessageAt >= from && s.firstFanMessageAt < to) sessions.push(s);
    for (const p of d.payments) if (p.paidAt >= from && p.paidAt < to) payments.push(p);
    for (const i of d.intervals) if (i.inAt < to && i.inAt >= earliest && (i.outAt === null || i.outAt > from)) intervals.push(i);
  }
  intervals.sort((a, b) => a.inAt - b.inAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { sessions, payments, intervals, dayDoc: (accountId, at) => byDay.get(accountId)?.get(Math.floor(at / DAY)) };
}
