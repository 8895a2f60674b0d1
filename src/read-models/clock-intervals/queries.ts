// Clocked time as it stands: the clock intervals (read model) with the automatic clock-out
// worked out from each chatter's replies (domain/clocked-time.ts). An interval's replies are
// read from the messages read model by chatter and time, up to where it ended.
import type { Collection, Filter } from '../../adapters/store/store.js';
import { clockedEnd, MAX_CLOCKED_MS, overlapMs, type ClockedEnd } from '../../domain/clocked-time.js';
import type { WorkInterval } from '../report-buckets/work-digest.js';
import type { ClockIntervalDoc } from './projection.js';
import type { MessageDoc } from '../messages/projection.js';
import type { ReadModelCollections } from '../read-model-set.js';

export interface ClockedInterval {
  readonly id: string;
  readonly accountId: string;
  readonly chatterId: string;
  readonly inAt: number;
  /** When it ended; null: on now. */
  readonly end: number | null;
  /** Ended by idling (no reply for the idle time), recorded by a later clock command or not yet. */
  readonly automatic: boolean;
  readonly inBy: string;
  readonly outBy: string | null;
}

/** One interval as it stands (resolveAll of one). */
export async function resolveInterval(rm: ReadModelCollections, d: ClockIntervalDoc, idleMs: number, now: number): Promise<ClockedInterval> {
  return (await resolveAll(rm, [d], idleMs, now))[0] as ClockedInterval;
}

/** What working out an interval's end needs of it. */
type Stored = Pick<ClockIntervalDoc, 'accountId' | 'chatterId' | 'inAt' | 'outAt' | 'outAutomatic'>;

/**
 * Per messages collection (one per read-model version), per open interval and idle time: the
 * latest reply up to which the interval has no idle gap, as a read found it. A chatter's replies
 * in the messages read model only ever grow (a message is recorded once, a later copy can only
 * name the chatter of a reply taken in without one, a deletion keeps it: the reply was sent), so
 * what was gap-free stays so, and the next read starts there: the replies since, not the
 * interval's hundreds each time (issue 51). Removals are what breaks that: a collection that had
 * documents removed through it (`Collection.removals`) starts afresh. On MongoDB a collection is
 * a new object per request, so nothing is kept there and every read walks the interval (correct,
 * no gain).
 */
const walked = new WeakMap<object, { removals: number; ends: Map<string, number> }>();
/** Entries per collection: the open intervals of a large floor many times over. */
const WALKED_MAX = 20_000;

/**
 * A collection's walks, begun afresh once documents were removed from it (a reset, a demo
 * purge, a version cleared for a rebuild): replies taken in again need not be the same.
 */
function walkedOf(collection: Collection<MessageDoc>): Map<string, number> {
  let m = walked.get(collection);
  if (!m || m.removals !== collection.removals) walked.set(collection, (m = { removals: collection.removals, ends: new Map() }));
  if (m.ends.size > WALKED_MAX) m.ends.clear();
  return m.ends;
}

interface Walk {
  readonly d: Stored;
  readonly key: string;
  /** A reply time (or the clock-in) up to which no idle gap lies. */
  last: number;
  /** Replies are read before `hi`: the cap, or now. */
  readonly hi: number;
  /** Whether the next read is the rest of the interval (else: only the idle time after `last`). */
  whole: boolean;
}

/**
 * Many open intervals' ends at once, each walked from where a read before left it (`walked`):
 * first the idle time after that reply (for an interval still on, up to now), which settles one
 * that idling has ended unless a reply came late into the gap; if replies came, the rest up to
 * now in a second read. Their chatters' replies are read per stretch of time the walks cover,
 * not one read per interval.
 */
async function endsOf(rm: ReadModelCollections, docs: readonly Stored[], idleMs: number, now: number): Promise<ClockedEnd[]> {
  const memo = walkedOf(rm.messages);
  // A clock-out is final: the route that appended it had worked out whether idling ended the
  // interval first, and said so (an automatic clock-out). Only open intervals read replies.
  const walks = new Map<Stored, Walk>();
  for (const d of docs) {
    if (d.outAt !== null) continue;
    const key = `${d.accountId}\u0000${d.chatterId}\u0000${d.inAt}\u0000${idleMs}`;
    const kept = memo.get(key);
    const hi = Math.min(d.inAt + MAX_CLOCKED_MS, now + 1);
    walks.set(d, { d, key, last: kept ?? d.inAt, hi, whole: kept === undefined });
  }
  let pending = [...walks.values()];
  while (pending.length > 0) {
    const next: Walk[] = [];
    const windows = pending.map((w) => ({ w, lo: w.last, hi: w.whole ? w.hi : Math.min(w.hi, w.last + idleMs) })).filter((x) => x.hi > x.lo);
    const replies = await repliesIn(rm, windows);
    for (const { w, hi } of windows) {
      const times = replies.get(`${w.d.accountId}\u0000${w.d.chatterId}`) ?? [];
      let gap = false;
      let seen = false;
      for (const t of times) {
        if (t <= w.last || t >= hi) continue;
        seen = true;
        if (t - w.last >= idleMs) {
          gap = true;
          break;
        }
        w.last = t;
      }
      memo.set(w.key, w.last);
      // Walked to the end, or to a gap, or the idle time after the last reply passed without one;
      // else replies came since: the rest is read whole in one more pass (not an idle time at a
      // time, which for a reader back after hours would be a read per idle time).
      if (!gap && seen && !w.whole && hi < w.hi) {
        w.whole = true;
        next.push(w);
      }
    }
    pending = next;
  }
  return docs.map((d) => {
    const w = walks.get(d);
    return w === undefined ? { end: d.outAt as number, automatic: d.outAutomatic } : clockedEnd(d.inAt, null, [], idleMs, now, w.last);
  });
}

/**
 * The reply times in each window (lo, hi) of its chatter on its account, per account and chatter,
 * ascending (with some from just before a window: callers skip what is not theirs). Windows that
 * overlap are read together: the read goes by the messages' time (the `sentAt` index), so
 * overlapping reads would read the same messages again.
 */
async function repliesIn(rm: ReadModelCollections, windows: readonly { w: Walk; lo: number; hi: number }[]): Promise<Map<string, number[]>> {
  const sorted = [...windows].sort((a, b) => a.lo - b.lo);
  const stretches: { lo: number; hi: number; chatters: Set<string> }[] = [];
  for (const x of sorted) {
    const last = stretches.at(-1);
    if (last && x.lo <= last.hi) {
      last.hi = Math.max(last.hi, x.hi);
      last.chatters.add(x.w.d.chatterId);
    } else stretches.push({ lo: x.lo, hi: x.hi, chatters: new Set([x.w.d.chatterId]) });
  }
  const found = (await Promise.all(stretches.map((s) => rm.messages.find(
    { chatterId: { $in: [...s.chatters] }, sentAt: { $gt: s.lo, $lt: s.hi }, sender: 'human' },
    { projection: { chatterId: 1, accountId: 1, sentAt: 1 } },
  )))).flat();
  const by = new Map<string, number[]>();
  for (const m of found) {
    const key = `${m.accountId}\u0000${m.chatterId ?? ''}`;
    const list = by.get(key);
    if (list) list.push(m.sentAt ?? 0);
    else by.set(key, [m.sentAt ?? 0]);
  }
  for (const list of by.values()) list.sort((a, b) => a - b);
  return by;
}

async function resolveAll(rm: ReadModelCollections, docs: readonly ClockIntervalDoc[], idleMs: number, now: number): Promise<ClockedInterval[]> {
  const ends = await endsOf(rm, docs, idleMs, now);
  return docs.map((d, i) => {
    const ended = ends[i] as ClockedEnd;
    return { id: d._id, accountId: d.accountId, chatterId: d.chatterId, inAt: d.inAt, end: ended.end, automatic: ended.automatic, inBy: d.inBy, outBy: d.outBy };
  });
}

/** A clocked span as the shift figures need it: whose, where, and from when to when (null: on now). */
export interface ClockedSpanOf {
  readonly accountId: string;
  readonly chatterId: string;
  readonly inAt: number;
  readonly end: number | null;
}

/**
 * The clocked spans overlapping [from, to) of intervals read from the report buckets' work facts
 * (report-buckets/work-digest.ts workIn), one chatter's if named, their ends worked out as
 * clockedIntervals works them out.
 */
export async function clockedSpans(rm: ReadModelCollections, intervals: readonly WorkInterval[], from: number, idleMs: number, now: number, chatterId?: string): Promise<ClockedSpanOf[]> {
  const mine = chatterId === undefined ? intervals : intervals.filter((i) => i.chatterId === chatterId);
  const ends = await endsOf(rm, mine, idleMs, now);
  const out: ClockedSpanOf[] = [];
  mine.forEach((d, i) => {
    const end = (ends[i] as ClockedEnd).end;
    if ((end ?? now) > from) out.push({ accountId: d.accountId, chatterId: d.chatterId, inAt: d.inAt, end });
  });
  return out;
}

/**
 * The intervals that overlap [from, to), of the accounts `inScope` selects (and one chatter's, if
 * named), oldest first: those clocked out after `from` and those not clocked out, each by the
 * index on `outAt`, so a window reads its own intervals and the few still open, not the history.
 */
export async function clockedIntervals(rm: ReadModelCollections, inScope: Filter, from: number, to: number, idleMs: number, now: number, chatterId?: string): Promise<ClockedInterval[]> {
  const base: Filter = { ...inScope, ...(chatterId !== undefined ? { chatterId } : {}) };
  const before = Number.isFinite(to) ? { inAt: { $lt: to } } : {};
  const [closed, open] = await Promise.all([
    rm.clock_intervals.find({ ...base, outAt: Number.isFinite(from) ? { $gt: from } : { $ne: null }, ...before }),
    rm.clock_intervals.find({ ...base, outAt: null, ...before }),
  ]);
  const docs = [...closed, ...open].sort((a, b) => a.inAt - b.inAt || a._id.localeCompare(b._id));
  const out = await resolveAll(rm, docs, idleMs, now);
  return out.filter((i) => (i.end ?? now) > from);
}

/** Who is on now: the intervals not ended at `now`. */
export async function onNow(rm: ReadModelCollections, inScope: Filter, idleMs: number, now: number): Promise<ClockedInterval[]> {
  const open = await rm.clock_intervals.find({ ...inScope, outAt: null }, { sort: { inAt: 1, _id: 1 } });
  const resolved = await resolveAll(rm, open, idleMs, now);
  return resolved.filter((i) => i.end === null);
}

/** The open interval of a chatter on an account, as it stands (at most one: the clock chat orders them). */
export async function openInterval(rm: ReadModelCollections, accountId: string, chatterId: string, idleMs: number, now: number): Promise<ClockedInterval | null> {
  const [d] = await rm.clock_intervals.find({ accountId, chatterId, outAt: null }, { sort: { inAt: -1 }, limit: 1 });
  return d ? resolveInterval(rm, d, idleMs, now) : null;
}

export interface ClockedSummary {
  readonly accountId: string;
  readonly chatterId: string;
  /** Clocked seconds inside the window (until now for an interval still on). */
  readonly clockedSec: number;
  readonly intervals: number;
  readonly automaticClockOuts: number;
  readonly onNow: boolean;
}

/** Per chatter and account: clocked time inside [from, to). */
export function summarise(intervals: readonly ClockedInterval[], from: number, to: number, now: number): ClockedSummary[] {
  const rows = new Map<string, { accountId: string; chatterId: string; ms: number; intervals: number; automaticClockOuts: number; onNow: boolean }>();
  for (const i of intervals) {
    const key = `${i.accountId}\u0000${i.chatterId}`;
    const row = rows.get(key) ?? { accountId: i.accountId, chatterId: i.chatterId, ms: 0, intervals: 0, automaticClockOuts: 0, onNow: false };
    row.ms += overlapMs(i.inAt, i.end ?? now, from, to);
    row.intervals++;
    if (i.automatic) row.automaticClockOuts++;
    if (i.end === null) row.onNow = true;
    rows.set(key, row);
  }
  return [...rows.values()]
    .map((r) => ({ accountId: r.accountId, chatterId: r.chatterId, clockedSec: Math.floor(r.ms / 1000), intervals: r.intervals, automaticClockOuts: r.automaticClockOuts, onNow: r.onNow }))
    .sort((a, b) => a.chatterId.localeCompare(b.chatterId) || a.accountId.localeCompare(b.accountId));
}
