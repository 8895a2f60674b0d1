// The shift figures' facts per account and day, read back for a window (the fields and why they
// are kept ahead: work-contributions.ts).
import type { Filter } from '../../adapters/store/store.js';
import { MAX_CLOCKED_MS } from '../../domain/clocked-time.js';
import type { CreditablePayment } from '../../domain/shift-credit.js';
import type { CreditModel } from '../payments/projection.js';
import type { ReadModelCollections } from '../read-model-set.js';
import type { ReportBucketDoc } from './document.js';
import { chatterIdOf, idRange } from './keys.js';
import { accountTest } from '../account-test.js';
import { MODEL_LETTER } from './work-contributions.js';

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
      credited: { session: chatterIn(f, MODEL_LETTER.session), sender: chatterIn(f, MODEL_LETTER.sender), converter: chatterIn(f, MODEL_LETTER.converter) },
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
