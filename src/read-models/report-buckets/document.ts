// The report-bucket document and how increments land in it. Buckets sum contributions of many
// chats, so like the account totals they remember, per source partition, the last `inbound`
// offset applied and which events of that record they have seen: an event applied once is
// skipped when it comes again (a batch retried after a store write failed half-way on
// MongoDB). Updates are increments fenced on the writer's own partition mark only, so
// projectors owning other partitions add to the same bucket without conflicting.
import type { BulkOp, Doc } from '../../adapters/store/store.js';
import { ALL_KEY, bucketIndex, bucketKey, bucketStart, docId, isFanField, isWorkField, LIVE_KEY, TIME_LEVELS, type Family, type Level, type TimeLevel } from './keys.js';
import type { Increment } from './contributions.js';

export type Histogram = Record<string, number>;

export interface ChatterCounters {
  readonly frt?: Histogram;
  /** `frt` corrected to open hours (see BucketCounters.bfrt). */
  readonly bfrt?: Histogram;
  readonly revenueCents?: number;
  readonly payments?: number;
  /** Revenue and payments credited under the sender and converter models (revenueCents and payments: the session model's). */
  readonly senderCents?: number;
  readonly senderPayments?: number;
  readonly converterCents?: number;
  readonly converterPayments?: number;
  readonly open?: number;
  readonly awaiting?: number;
}

/** A chatter's direct work (`conv`) or a campaign's sends (`camp`): counts, and histograms of price and minutes to unlock. */
export interface ConversionCounters {
  readonly direct?: number;
  readonly sent?: number;
  readonly ppvSent?: number;
  readonly unlocked?: number;
  readonly ppvRevenueCents?: number;
  readonly price?: Histogram;
  readonly unlockMin?: Histogram;
  /** Direct messages per fan (keys.ts fanKey): which fans a chatter chatted with. */
  readonly fans?: Histogram;
  /** Direct replies a quality rule fired on (domain/qa-rules.ts). */
  readonly qaOffPlatformContact?: number;
  readonly qaOffPlatformPayment?: number;
  /** Direct replies with one of the account's banned phrases. */
  readonly qaBannedPhrase?: number;
}

/** Every figure a bucket can hold; absent means zero. */
export interface BucketCounters {
  readonly opened?: number;
  readonly openedClosed?: number;
  readonly chats?: number;
  readonly messages?: number;
  readonly fanMessages?: number;
  readonly revenueCents?: number;
  readonly payments?: number;
  /** First-response seconds of answered sessions → count. */
  readonly frt?: Histogram;
  /** Seconds waited (rounded up) by sessions that closed unanswered → count. */
  readonly wait?: Histogram;
  /**
   * What turns `frt` and `wait` into the same figures in open hours: per session measured on an
   * account with business hours whose seconds differ, -1 at its wall-clock seconds and +1 at its
   * open-hours seconds. `frt` plus `bfrt`, key by key, is the business clock's histogram (never
   * below zero in one bucket: a session's contributions all land in the same buckets).
   */
  readonly bfrt?: Histogram;
  readonly bwait?: Histogram;
  /** Sessions that closed with the fan never answered (closeReason `unanswered`). */
  readonly missed?: number;
  readonly chatters?: Readonly<Record<string, ChatterCounters>>;
  /** Per chatter key (keys.ts chatterKey): direct messages, direct PPVs and their unlocks. */
  readonly conv?: Readonly<Record<string, ConversionCounters>>;
  /** Per campaign key (keys.ts campaignKey): queued and automated sends and their unlocks. */
  readonly camp?: Readonly<Record<string, ConversionCounters>>;
  /** Direct messages per fan (keys.ts fanKey), every chatter's: the account's fans chatted. */
  readonly directFans?: Histogram;
  /** Unlocks whose link names no PPV of the chat, and unlocks of PPVs convops never saw sent; with the amounts shown. */
  readonly ppvUnlinkedUnlocks?: number;
  readonly ppvUnlinkedCents?: number;
  readonly ppvUnseenUnlocks?: number;
  readonly ppvUnseenCents?: number;
  /** Live row only: sessions open now, and of those, awaiting a reply. */
  readonly open?: number;
  readonly awaiting?: number;
}

export interface PartitionMark {
  readonly o: number;
  readonly n: number;
  readonly ids: readonly string[];
}

export interface ReportBucketDoc extends Doc, BucketCounters {
  readonly level: Level;
  /** Bucket start (epoch ms); null for the live row and the all-time bucket. */
  readonly start: number | null;
  readonly accountId: string;
  readonly w?: Readonly<Record<string, PartitionMark>>;
  /**
   * The earliest and latest time of any contribution ever added to this time bucket (kept with
   * $min and $max, so they only widen, whatever the order). A window whose partial end covers
   * [loAt, hiAt] can read the bucket instead of the raw documents. Built from documents
   * (builder.ts), the bounds of what the bucket holds; absent on buckets built before they were
   * kept, which then stay unbounded (read raw at a partial end).
   */
  readonly loAt?: number;
  readonly hiAt?: number;
}

/** Fields of a bucket that are not figures. */
export const BUCKET_META: ReadonlySet<string> = new Set(['_id', 'level', 'start', 'accountId', 'w', '_rev', 'loAt', 'hiAt']);

export interface BucketAddress {
  readonly id: string;
  readonly level: Level;
  readonly start: number | null;
  readonly accountId: string;
}

/** The buckets an increment lands in: its hour, day and month (of its family, keys.ts) and its account's all-time bucket, or the live row. */
export function addressesOf(i: Increment): readonly BucketAddress[] {
  if (i.at === null) return liveAddress(i.accountId);
  // An event's increments share a time, and a replay's events crowd into the same hours:
  // the addresses (three ids, a calendar month) are worked out once per account and hour.
  const hour = bucketIndex('h', i.at);
  const family: Family = isWorkField(i.field) ? 'work' : isFanField(i.field) ? 'fans' : 'figures';
  const key = `${i.accountId}\u0000${hour}\u0000${family}`;
  let found = ADDRESSES.get(key);
  if (!found) {
    const at = bucketStart('h', hour);
    const timed: BucketAddress[] = (family === 'work' ? WORK_LEVELS : TIME_LEVELS).map((level) => {
      const idx = bucketIndex(level, at);
      return { id: docId(level, bucketKey(idx), i.accountId, family), level, start: bucketStart(level, idx), accountId: i.accountId };
    });
    // The figures of all time too; not the fan sets, which there would be every fan an account
    // ever had, loaded and rewritten by every projector round.
    found = family === 'figures' ? [...timed, { id: docId('all', ALL_KEY, i.accountId), level: 'all', start: null, accountId: i.accountId }] : timed;
    if (ADDRESSES.size >= MAX_ADDRESSES) ADDRESSES.clear();
    ADDRESSES.set(key, found);
  }
  return found;
}

const ADDRESSES = new Map<string, readonly BucketAddress[]>();
/** The work facts are read a day at a time (work-digest.ts): kept in days only. */
const WORK_LEVELS: readonly TimeLevel[] = ['d'];
const MAX_ADDRESSES = 20_000;

function liveAddress(accountId: string): readonly BucketAddress[] {
  return [{ id: docId('live', LIVE_KEY, accountId), level: 'live', start: null, accountId }];
}

/** Adds `amount` at a dotted path of a plain object (an accumulator, not a stored document). */
/** Field paths split once: the same few thousand recur in every edge sum and every bucket build. */
const PATHS = new Map<string, readonly string[]>();
const PATHS_KEPT = 100_000;

function pathOf(field: string): readonly string[] {
  let parts = PATHS.get(field);
  if (!parts) {
    parts = field.split('.');
    if (PATHS.size >= PATHS_KEPT) PATHS.clear();
    PATHS.set(field, parts);
  }
  return parts;
}

export function addAt(target: Record<string, unknown>, field: string, amount: number): void {
  const parts = pathOf(field);
  let cur = target;
  for (let i = 0; i < parts.length - 1; i++) {
    const p = parts[i] as string;
    const next = cur[p];
    if (typeof next !== 'object' || next === null) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  const last = parts[parts.length - 1] as string;
  cur[last] = (typeof cur[last] === 'number' ? (cur[last] as number) : 0) + amount;
}

/** Where an event sits: its source record (partition, offset) and its id. */
export interface EventMark {
  readonly partition: number;
  readonly offset: number;
  readonly id: string;
}

interface Pending {
  readonly address: BucketAddress;
  readonly existed: boolean;
  /** Whether the bucket keeps time bounds: new ones do; one stored without them never can. */
  readonly bounded: boolean;
  readonly before: Record<string, PartitionMark>;
  readonly marks: Record<string, PartitionMark>;
  readonly inc: Map<string, number>;
  lo: number;
  hi: number;
  /** Written without a mark (addUnmarked): the caller's own condition makes the write apply once. */
  unmarked: boolean;
}

const markKey = (partition: number): string => `p${partition}`;

function add(p: Pending, items: readonly Increment[]): void {
  for (const i of items) {
    p.inc.set(i.field, (p.inc.get(i.field) ?? 0) + i.amount);
    // Every applied event's times, before netting: the bounds then do not depend on batching.
    if (i.at !== null) {
      if (i.at < p.lo) p.lo = i.at;
      if (i.at > p.hi) p.hi = i.at;
    }
  }
}

/**
 * Folds events' increments into writes for the bucket documents `loaded` holds (absent ids are
 * new). Per bucket, an event already applied (by its source partition mark) is skipped.
 */
export class BucketWrites {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly loaded: ReadonlyMap<string, ReportBucketDoc>) {}

  add(event: EventMark, increments: readonly Increment[]): void {
    const byDoc = new Map<string, { address: BucketAddress; items: Increment[] }>();
    for (const i of increments) {
      for (const address of addressesOf(i)) {
        const slot = byDoc.get(address.id);
        if (slot) slot.items.push(i);
        else byDoc.set(address.id, { address, items: [i] });
      }
    }
    const key = markKey(event.partition);
    for (const [id, { address, items }] of byDoc) {
      const p = this.pendingFor(id, address);
      const mark = p.marks[key];
      if (mark && (event.offset < mark.o || (event.offset === mark.o && mark.ids.includes(event.id)))) continue;
      p.marks[key] = mark && mark.o === event.offset ? { o: mark.o, n: mark.n + 1, ids: [...mark.ids, event.id] } : { o: event.offset, n: 1, ids: [event.id] };
      add(p, items);
    }
  }

  /**
   * Increments that carry no event: a projector's sweep of lapsed sessions (projector/lapse-sweep.ts),
   * applied once because its documents' writes are conditional on their revisions and land in the
   * same transaction. Only for a store whose bulk writes are one transaction (the embedded store).
   */
  addUnmarked(increments: readonly Increment[]): void {
    for (const i of increments) {
      for (const address of addressesOf(i)) {
        const p = this.pendingFor(address.id, address);
        p.unmarked = true;
        add(p, [i]);
      }
    }
  }

  private pendingFor(id: string, address: BucketAddress): Pending {
    let p = this.pending.get(id);
    if (!p) {
      const doc = this.loaded.get(id);
      const before = { ...(doc?.w ?? {}) };
      const bounded = address.level !== 'live' && (doc === undefined || typeof doc.hiAt === 'number');
      p = { address, existed: doc !== undefined, bounded, before, marks: { ...before }, inc: new Map(), lo: Infinity, hi: -Infinity, unmarked: false };
      this.pending.set(id, p);
    }
    return p;
  }

  /** Ids of buckets the events touched (to load before adding). */
  static idsOf(increments: readonly Increment[]): string[] {
    const ids = new Set<string>();
    BucketWrites.addIds(increments, ids);
    return [...ids];
  }

  /** Adds to `ids` the buckets the increments land in (a replay's slice: hundreds of thousands of increments, a few hundred buckets). */
  static addIds(increments: readonly Increment[], ids: Set<string>): void {
    let last: readonly BucketAddress[] | undefined;
    for (const i of increments) {
      const addresses = addressesOf(i);
      // An event's increments mostly share their addresses (one cached array): added once.
      if (addresses === last) continue;
      last = addresses;
      for (const a of addresses) ids.add(a.id);
    }
  }

  /**
   * Updates of existing buckets (each must match its fence) and upserts of new ones, kept
   * apart: a MongoDB bulk write reports matches for the whole write, not per operation.
   */
  ops(): { updates: BulkOp<ReportBucketDoc>[]; inserts: BulkOp<ReportBucketDoc>[] } {
    const updates: BulkOp<ReportBucketDoc>[] = [];
    const inserts: BulkOp<ReportBucketDoc>[] = [];
    for (const [id, p] of this.pending) {
      const $inc: Record<string, number> = {};
      for (const [field, amount] of p.inc) if (amount !== 0) $inc[field] = amount;
      const filter: Record<string, unknown> = { _id: id };
      const $set: Record<string, unknown> = {};
      for (const [k, mark] of Object.entries(p.marks)) {
        if (p.before[k] === mark) continue;
        const was = p.before[k];
        if (was) {
          filter[`w.${k}.o`] = was.o;
          filter[`w.${k}.n`] = was.n;
        } else {
          filter[`w.${k}`] = { $exists: false };
        }
        $set[`w.${k}`] = mark;
      }
      // Marks are written even when the increments cancelled out, so the stored document does
      // not depend on how events were batched (replay must rebuild it byte for byte).
      if (Object.keys($set).length === 0 && !(p.unmarked && Object.keys($inc).length > 0)) continue;
      const bounds = p.bounded && p.lo <= p.hi ? { $min: { loAt: p.lo }, $max: { hiAt: p.hi } } : {};
      const update = { ...(Object.keys($inc).length > 0 ? { $inc } : {}), ...(Object.keys($set).length > 0 ? { $set } : {}), ...bounds };
      if (p.existed) {
        updates.push({ updateOne: { filter, update, requireMatch: true } });
      } else {
        const { level, start, accountId } = p.address;
        inserts.push({ updateOne: { filter, update: { ...update, $setOnInsert: { level, start, accountId } }, upsert: true } });
      }
    }
    return { updates, inserts };
  }
}
