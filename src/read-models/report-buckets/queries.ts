// Named queries over the report buckets: what a window of history sums to, and what is open
// now. A window reads its whole buckets (see window.ts) and, at its partial ends, the raw
// documents of at most an hour each, passed through the same contributions the projector
// folds, so an answer is exact wherever the window's bounds fall.
import type { Filter } from '../../adapters/store/store.js';
import { pastDeadlineFilter, shownClose } from '../../domain/session-deadline.js';
import { LruMap } from '../../support/lru.js';
import { accountTest } from '../account-test.js';
import type { ReadModelCollections } from '../read-model-set.js';
import type { SessionDoc } from '../sessions/projection.js';
import type { Increment } from './contributions.js';
import { edgeIncrements, sameObjects, type Part } from './edges.js';
import { addAt, BUCKET_META, type ReportBucketDoc } from './document.js';
import type { Sums, Unanswered } from './figures.js';
import { ALL_RANGE, bucketStart, chatterKey, idRange, type Family } from './keys.js';
import { cover, type BucketRange, type Cover } from './window.js';
import { AccountWindow, decodeBucket, mergeDecoded, type DecodedBucket } from './window-sums.js';

/** [from, to) in epoch ms; either bound may be infinite (an open window). */
export interface ReportWindow {
  readonly from: number;
  readonly to: number;
}

export const ALL_TIME: ReportWindow = { from: -Infinity, to: Infinity };

/** A store condition for `field` in the window; nothing for an open end. */
export function rangeOn(field: string, w: ReportWindow): Filter {
  const range: Record<string, number> = {};
  if (Number.isFinite(w.from)) range.$gte = w.from;
  if (Number.isFinite(w.to)) range.$lt = w.to;
  return Object.keys(range).length === 0 ? {} : { [field]: range };
}

export interface WindowSums {
  /** Figures per account (only accounts with something in the window). */
  readonly byAccount: Map<string, AccountWindow>;
  /** Open sessions in the window whose fan has had no reply yet (judged against the clock). */
  readonly unanswered: readonly (Unanswered & { readonly accountId: string })[];
}

function counters(doc: ReportBucketDoc): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) if (!BUCKET_META.has(k)) out[k] = v;
  return out;
}

const HOUR = 3_600_000;

/**
 * The window as whole buckets and raw edges, split at the start of the current hour: what lies
 * before it is settled history whose buckets rarely change (so their decoding is reused), and
 * the buckets written on every event (this month's, today's) are never read whole: only the
 * current hour's bucket is.
 */
export function windowCover(w: ReportWindow, now: number): Cover {
  const split = Math.floor(now / HOUR) * HOUR;
  if (!(w.from < split && split < w.to)) return cover(w.from, w.to);
  const [before, after] = [cover(w.from, split), cover(split, w.to)];
  return { buckets: [...before.buckets, ...after.buckets], edges: [...before.edges, ...after.edges] };
}

/** Windows' settled buckets merged per account, by collection, projection and bucket ranges: a dashboard's few windows, each kept while its documents are unchanged. */
const MERGED_KEPT = 64;
interface Merged { readonly docs: readonly object[]; readonly merged: [string, DecodedBucket][] | null }
const mergedSettled = new LruMap<string, Merged>(MERGED_KEPT);

export class ReportQueries {
  constructor(private readonly rm: ReadModelCollections) {}

  /**
   * The window's figures, of the accounts `inScope` selects; `now` splits settled history from
   * the hour being written. `clock`: how first responses and waits are measured (AccountWindow).
   */
  async window(w: ReportWindow, inScope: Filter, parts: readonly Part[], now: number, clock: 'wall' | 'business' = 'wall'): Promise<WindowSums> {
    const visible = accountTest(inScope);
    const wanted = new Set(parts);
    const byAccount = new Map<string, AccountWindow>();
    const windowOf = (accountId: string): AccountWindow => {
      let s = byAccount.get(accountId);
      if (!s) {
        s = new AccountWindow(clock);
        byAccount.set(accountId, s);
      }
      return s;
    };
    // Counts alone leave the first-response histograms and the conversion figures (most of a
    // bucket) on the server. A report that needs either reads whole buckets: the embedded store
    // keeps one shared object per bucket and set of left-out fields, and the decoding of each
    // (window-sums.ts), so the scorecard's two reads (its SLA and its money) share one.
    const projection: Record<string, 0> = wanted.has('sla') || wanted.has('conversion') ? {} : { frt: 0, wait: 0, bfrt: 0, bwait: 0, chatters: 0, conv: 0, camp: 0 };
    const unanswered = wanted.has('sla') ? this.unanswered(w, inScope, now) : Promise.resolve([]);
    // All time (up to a bound past everything stored) is each account's `all` bucket: one read
    // whatever the history. Fan sets are not kept there (document.ts addressesOf).
    if (w.from === -Infinity && !wanted.has('fans')) {
      const all = await this.rm.report_buckets.find({ _id: ALL_RANGE }, { projection, shared: true });
      if (all.every((d) => w.to === Infinity || (typeof d.hiAt === 'number' && d.hiAt < w.to))) {
        for (const doc of all) if (visible(doc.accountId)) windowOf(doc.accountId).add(decodeBucket(doc));
        return { byAccount, unanswered: (await unanswered).filter((u) => visible(u.accountId)) };
      }
    }
    const { buckets, edges } = windowCover(w, now);
    // Buckets before the current hour are settled history: merged once per account and kept
    // while the store hands out the same documents (settledSums), so a request adds one merged
    // bucket per account instead of dozens. The current hour's are added as they are.
    const split = Math.floor(now / HOUR) * HOUR;
    const settled = buckets.filter((r) => r.to < Number.MAX_SAFE_INTEGER && bucketStart(r.level, r.to) <= split);
    const current = buckets.filter((r) => !settled.includes(r));
    // Fan sets only for a report that counts fans chatted: they are most of a bucket's bytes.
    const families: Family[] = wanted.has('fans') ? ['figures', 'fans'] : ['figures'];
    const reads: Promise<void>[] = current.flatMap((r) => families.map(async (family) => {
      for (const doc of await this.rm.report_buckets.find({ _id: idRange(r.level, r.from, r.to, family) }, { projection: family === 'fans' ? {} : projection, shared: true })) {
        if (visible(doc.accountId)) windowOf(doc.accountId).add(decodeBucket(doc));
      }
    }));
    if (settled.length > 0) {
      reads.push(this.settledSums(settled, projection, wanted.has('fans')).then((sums) => {
        for (const [accountId, d] of sums) if (visible(accountId)) windowOf(accountId).add(d);
      }));
    }
    // The partial ends: each part from the documents that carry its time, summed per account
    // like a bucket and added as one.
    const edgeSums = new Map<string, Record<string, unknown>>();
    const take = (increments: readonly Increment[], a: number, b: number) => {
      for (const i of increments) {
        if (i.at === null || i.at < a || i.at >= b || !visible(i.accountId)) continue;
        let sums = edgeSums.get(i.accountId);
        if (!sums) {
          sums = {};
          edgeSums.set(i.accountId, sums);
        }
        addAt(sums, i.field, i.amount);
      }
    };
    for (const [a, b] of edges) {
      for (const part of wanted) reads.push(edgeIncrements(this.rm, part, a, b, inScope, now).then((increments) => take(increments, a, b)));
    }
    await Promise.all(reads);
    for (const [accountId, sums] of edgeSums) windowOf(accountId).add(decodeBucket(sums));
    return { byAccount, unanswered: (await unanswered).filter((u) => visible(u.accountId)) };
  }

  /**
   * The settled buckets' figures, per account: merged (window-sums.ts mergeDecoded) once the
   * store has handed out the same documents twice, and kept while it does. A store that hands
   * out new objects on every read (MongoDB) never matches, and its buckets are added one by one.
   * With `fans`, the fan sets beside those buckets too. Those documents are too large for the
   * store to keep shared, so the figures' documents stand for them: a fan set changes only with
   * its bucket's direct messages, whose events rewrite the figures' document too.
   */
  private async settledSums(ranges: readonly BucketRange[], projection: Record<string, 0>, fans: boolean): Promise<[string, DecodedBucket][]> {
    // The fan sets are not read shared: megabytes a month, they would push the figures' documents
    // (what tells whether the merge still holds) out of the store's shared reads on every request.
    const read = (family: Family) => Promise.all(ranges.map((r) => this.rm.report_buckets.find({ _id: idRange(r.level, r.from, r.to, family) }, family === 'fans' ? {} : { projection, shared: true }))).then((d) => d.flat());
    const docs = await read('figures');
    const key = `${this.rm.report_buckets.name}|${Object.keys(projection).join(',')}|${fans ? 'fans|' : ''}${ranges.map((r) => `${r.level}${r.from}-${r.to}`).join(',')}`;
    const known = mergedSettled.get(key);
    const same = known !== undefined && sameObjects(known.docs, docs);
    if (same && known.merged !== null) return known.merged;
    const all = fans ? [...docs, ...(await read('fans'))] : docs;
    if (!same) {
      mergedSettled.set(key, { docs, merged: null });
      return all.map((d) => [d.accountId, decodeBucket(d)]);
    }
    const parts = new Map<string, DecodedBucket[]>();
    for (const doc of all) {
      const list = parts.get(doc.accountId);
      if (list) list.push(decodeBucket(doc));
      else parts.set(doc.accountId, [decodeBucket(doc)]);
    }
    const merged: [string, DecodedBucket][] = [...parts].map(([accountId, list]) => [accountId, mergeDecoded(list)]);
    // Kept only if nothing changed while the fan sets were read (MongoDB lands buckets before documents).
    if (!fans || sameObjects(docs, await read('figures'))) mergedSettled.set(key, { docs, merged });
    return merged;
  }

  /**
   * Sessions of the window open in the store with their fan not answered. One past its deadline
   * at `now` is shown closed, as every reader shows it (domain/session-deadline.ts shownClose),
   * with the reason it will close for: a breach, and missed when that is the unanswered limit.
   */
  private async unanswered(w: ReportWindow, inScope: Filter, now: number): Promise<(Unanswered & { accountId: string })[]> {
    const range: Record<string, number | null> = { $ne: null };
    if (Number.isFinite(w.from)) range.$gte = w.from;
    if (Number.isFinite(w.to)) range.$lt = w.to;
    const docs = await this.rm.sessions.find({ ...inScope, status: 'open', firstResponseSec: null, firstFanMessageAt: range }, { projection: { accountId: 1, firstFanMessageAt: 1, status: 1, closesAt: 1, closesAs: 1, awaiting: 1, closedAt: 1, closeReason: 1 } });
    return docs.map((d) => {
      const shown = shownClose(d, now);
      return { accountId: d.accountId, firstFanMessageAt: d.firstFanMessageAt ?? 0, ...(shown.status === 'closed' ? { closedAs: shown.closeReason } : {}) };
    });
  }

  /**
   * Each account's live row: sessions open now and awaiting, per account and per chatter, less
   * those past their deadline at `now` (the tick has yet to close them; readers show them closed).
   */
  async live(inScope: Filter, now: number): Promise<Map<string, Sums>> {
    const visible = accountTest(inScope);
    const out = new Map<string, Sums>();
    const [rows, lapsed] = await Promise.all([
      this.rm.report_buckets.find({ _id: { $gte: 'live|', $lt: 'live}' } }),
      this.rm.sessions.find({ ...inScope, ...pastDeadlineFilter(now) }, { projection: { accountId: 1, awaiting: 1, lastHumanChatterId: 1 } }),
    ]);
    for (const doc of rows) if (visible(doc.accountId)) out.set(doc.accountId, structuredClone(counters(doc)) as Sums);
    const less = (o: Record<string, unknown>, field: string) => {
      if (typeof o[field] === 'number') o[field] = Math.max(0, (o[field] as number) - 1);
    };
    for (const s of lapsed) {
      const row = out.get(s.accountId) as Record<string, unknown> | undefined;
      if (!row) continue;
      less(row, 'open');
      if (s.awaiting) less(row, 'awaiting');
      const chatter = s.lastHumanChatterId === null ? undefined : (row.chatters as Record<string, Record<string, unknown>> | undefined)?.[chatterKey(s.lastHumanChatterId)];
      if (chatter) {
        less(chatter, 'open');
        if (s.awaiting) less(chatter, 'awaiting');
      }
    }
    return out;
  }

  /**
   * Sessions whose fan is waiting now (an index read of the priority inbox's waiting part),
   * less those past their deadline at `now`: the tick closes them as unanswered soon.
   */
  async awaitingNow(inScope: Filter, now: number): Promise<Pick<SessionDoc, '_id' | 'accountId' | 'awaiting' | 'waitingSince' | 'openedAt' | 'lastHumanChatterId'>[]> {
    const docs = await this.rm.sessions.find({ ...inScope, priorityAt: { $ne: null } }, { projection: { accountId: 1, awaiting: 1, waitingSince: 1, openedAt: 1, lastHumanChatterId: 1, closesAt: 1 } });
    return docs.filter((d) => d.closesAt == null || d.closesAt > now);
  }
}
