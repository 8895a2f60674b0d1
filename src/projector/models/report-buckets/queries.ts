// Named queries over the report buckets: what a window of history sums to, and what is open
// now. A window reads its whole buckets (see window.ts) and, at its partial ends, the raw
// documents of at most an hour each, passed through the same contributions the projector
// folds, so an answer is exact wherever the window's bounds fall.
import type { Filter } from '../../../adapters/store/store.js';
import type { ReadModelCollections } from '../../read-model-set.js';
import type { SessionDoc } from '../sessions/projection.js';
import { incrementsOf, type Increment } from './contributions.js';
import { addAt, type ReportBucketDoc } from './document.js';
import { addSums, type Sums, type Unanswered } from './figures.js';
import { idRange } from './keys.js';
import { cover } from './window.js';

/** [from, to) in epoch ms; either bound may be infinite (an open window). */
export interface ReportWindow {
  readonly from: number;
  readonly to: number;
}

export const ALL_TIME: ReportWindow = { from: -Infinity, to: Infinity };

/** What a report needs summed: first-response outcomes, session counts, messages, payments. */
export type Part = 'sla' | 'sessions' | 'messages' | 'payments';

const PART_OF_FIELD: readonly [RegExp, Part][] = [
  [/^(frt|wait)\.|^chatters\.[^.]+\.frt\./, 'sla'],
  [/^(opened|openedClosed|chats)$/, 'sessions'],
  [/^(messages|fanMessages)$/, 'messages'],
  [/^(revenueCents|payments)$|^chatters\.[^.]+\.(revenueCents|payments)$/, 'payments'],
];

const partOf = (field: string): Part | undefined => PART_OF_FIELD.find(([re]) => re.test(field))?.[1];

export interface WindowSums {
  /** Sums per account (only accounts with something in the window). */
  readonly byAccount: Map<string, Sums>;
  /** Open sessions in the window whose fan has had no reply yet (judged against the clock). */
  readonly unanswered: readonly (Unanswered & { readonly accountId: string })[];
}

/** Which accounts a store filter (from the request's scope) lets through. */
export function accountTest(inScope: Filter): (accountId: string) => boolean {
  const a = inScope.accountId;
  if (a === undefined) return () => true;
  if (typeof a === 'string') return (id) => id === a;
  const list = (a as { $in?: unknown[] }).$in;
  if (Array.isArray(list)) {
    const set = new Set(list);
    return (id) => set.has(id);
  }
  return () => false;
}

const META = new Set(['_id', 'level', 'start', 'accountId', 'w', '_rev']);

function counters(doc: ReportBucketDoc): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) if (!META.has(k)) out[k] = v;
  return out;
}

export class ReportQueries {
  constructor(private readonly rm: ReadModelCollections) {}

  /** The window's sums, of the accounts `inScope` selects. */
  async window(w: ReportWindow, inScope: Filter, parts: readonly Part[]): Promise<WindowSums> {
    const visible = accountTest(inScope);
    const wanted = new Set(parts);
    const byAccount = new Map<string, Sums>();
    const sumsOf = (accountId: string): Sums => {
      let s = byAccount.get(accountId);
      if (!s) {
        s = {};
        byAccount.set(accountId, s);
      }
      return s;
    };
    const { buckets, edges } = cover(w.from, w.to);
    // Counts alone leave the first-response histograms (most of a bucket) on the server.
    const projection: Record<string, 0> = wanted.has('sla') ? { w: 0 } : { w: 0, frt: 0, wait: 0, chatters: 0 };
    const reads: Promise<void>[] = buckets.map(async (r) => {
      for (const doc of await this.rm.report_buckets.find({ _id: idRange(r.level, r.from, r.to) }, { projection })) {
        if (visible(doc.accountId)) addSums(sumsOf(doc.accountId) as Record<string, unknown>, doc, META);
      }
    });
    // The partial ends: each part from the documents that carry its time.
    const take = (increments: readonly Increment[], part: Part, a: number, b: number) => {
      for (const i of increments) {
        if (i.at === null || i.at < a || i.at >= b || partOf(i.field) !== part) continue;
        if (visible(i.accountId)) addAt(sumsOf(i.accountId) as Record<string, unknown>, i.field, i.amount);
      }
    };
    for (const [a, b] of edges) {
      const range = { $gte: a, $lt: b };
      if (wanted.has('sla')) reads.push(this.rm.sessions.find({ ...inScope, firstFanMessageAt: range }).then((docs) => { for (const d of docs) take(incrementsOf('sessions', d), 'sla', a, b); }));
      if (wanted.has('sessions')) reads.push(this.rm.sessions.find({ ...inScope, openedAt: range }).then((docs) => { for (const d of docs) take(incrementsOf('sessions', d), 'sessions', a, b); }));
      if (wanted.has('messages')) reads.push(this.rm.messages.find({ ...inScope, sentAt: range }, { projection: { accountId: 1, sender: 1, sentAt: 1, tombstone: 1 } }).then((docs) => { for (const d of docs) take(incrementsOf('messages', d), 'messages', a, b); }));
      if (wanted.has('payments')) reads.push(this.rm.payments.find({ ...inScope, paidAt: range }).then((docs) => { for (const d of docs) take(incrementsOf('payments', d), 'payments', a, b); }));
    }
    const unanswered = wanted.has('sla') ? this.unanswered(w, inScope) : Promise.resolve([]);
    await Promise.all(reads);
    return { byAccount, unanswered: (await unanswered).filter((u) => visible(u.accountId)) };
  }

  private async unanswered(w: ReportWindow, inScope: Filter): Promise<(Unanswered & { accountId: string })[]> {
    const range: Record<string, number | null> = { $ne: null };
    if (Number.isFinite(w.from)) range.$gte = w.from;
    if (Number.isFinite(w.to)) range.$lt = w.to;
    const docs = await this.rm.sessions.find({ ...inScope, status: 'open', firstResponseSec: null, firstFanMessageAt: range }, { projection: { accountId: 1, firstFanMessageAt: 1 } });
    return docs.map((d) => ({ accountId: d.accountId, firstFanMessageAt: d.firstFanMessageAt ?? 0 }));
  }

  /** Each account's live row: sessions open now and awaiting, per account and per chatter. */
  async live(inScope: Filter): Promise<Map<string, Sums>> {
    const visible = accountTest(inScope);
    const out = new Map<string, Sums>();
    for (const doc of await this.rm.report_buckets.find({ _id: { $gte: 'live|', $lt: 'live}' } })) {
      if (visible(doc.accountId)) out.set(doc.accountId, counters(doc) as Sums);
    }
    return out;
  }

  /** Sessions whose fan is waiting now (an index read of the priority inbox's waiting part). */
  async awaitingNow(inScope: Filter): Promise<Pick<SessionDoc, '_id' | 'accountId' | 'awaiting' | 'waitingSince' | 'openedAt' | 'lastHumanChatterId'>[]> {
    return this.rm.sessions.find({ ...inScope, priorityAt: { $ne: null } }, { projection: { accountId: 1, awaiting: 1, waitingSince: 1, openedAt: 1, lastHumanChatterId: 1 } });
  }
}
