// What a report window adds up to for one account, kept as the list of its buckets' decoded
// figures rather than one merged document: counters are summed as they come, histograms are
// queried together (histogram.ts). A bucket decodes once per stored version: the store hands
// out the same object while the document is unchanged, and the decoding is remembered per object.
import { BUCKET_META, type BucketCounters, type Histogram } from './document.js';
import { HistogramSet, mergeCounts, sortedCounts, type SortedCounts } from './histogram.js';
import { CREDIT_MODELS, type CreditModel } from '../payments/projection.js';
import { DistinctKeys, keysAboveZero, unionOf } from './distinct-keys.js';

/** Revenue and payments credited to a chatter, per attribution model. */
export type CreditSums = Record<CreditModel, { revenueCents: number; payments: number }>;

export interface DecodedChatter {
  readonly frt: SortedCounts;
  readonly credit: Readonly<CreditSums>;
}

const noCredit = (): CreditSums => ({ session: { revenueCents: 0, payments: 0 }, sender: { revenueCents: 0, payments: 0 }, converter: { revenueCents: 0, payments: 0 } });

/** A chatter's (under `conv`) or a campaign's (under `camp`) conversion figures in a bucket. */
export interface DecodedConversion {
  /** direct, ppvSent, unlocked, ppvRevenueCents (chatters); sent, ppvSent, unlocked, ppvRevenueCents (campaigns). */
  readonly counts: Readonly<Record<string, number>>;
  /** Direct PPVs sent by price in cents; their unlocks by whole minutes from send. */
  readonly price: SortedCounts;
  readonly unlockMin: SortedCounts;
  /** The fans of a chatter's direct messages (keys.ts fanKey); empty for campaigns. */
  readonly fans: ReadonlySet<string>;
}

/** A bucket's first-response histograms in open hours (document.ts `bfrt`): only the chatters whose differ from the wall clock's. */
export interface BusinessHistograms {
  readonly frt: SortedCounts;
  readonly wait: SortedCounts;
  readonly chatters: ReadonlyMap<string, SortedCounts>;
}

export interface DecodedBucket {
  /** The bucket's top-level counts (opened, messages, revenueCents, ...). */
  readonly counters: Readonly<Record<string, number>>;
  readonly frt: SortedCounts;
  readonly wait: SortedCounts;
  readonly chatters: ReadonlyMap<string, DecodedChatter>;
  readonly conv: ReadonlyMap<string, DecodedConversion>;
  readonly camp: ReadonlyMap<string, DecodedConversion>;
  /** The fans of the account's direct messages, every chatter's. */
  readonly directFans: ReadonlySet<string>;
  /** In open hours; null: the same as the wall clock's (no session measured differently). */
  readonly business: BusinessHistograms | null;
}

/** `h` plus `correction`, key by key. */
function corrected(h: Histogram | undefined, correction: Histogram): SortedCounts {
  const sum: Histogram = { ...h };
  for (const k in correction) sum[k] = (sum[k] ?? 0) + (correction[k] as number);
  return sortedCounts(sum);
}

function businessOf(doc: BucketCounters, frt: SortedCounts, wait: SortedCounts): BusinessHistograms | null {
  const chatters = new Map<string, SortedCounts>();
  for (const [key, c] of Object.entries(doc.chatters ?? {})) if (c.bfrt) chatters.set(key, corrected(c.frt, c.bfrt));
  if (!doc.bfrt && !doc.bwait && chatters.size === 0) return null;
  return { frt: doc.bfrt ? corrected(doc.frt, doc.bfrt) : frt, wait: doc.bwait ? corrected(doc.wait, doc.bwait) : wait, chatters };
}

const decoded = new WeakMap<object, DecodedBucket>();

/** Fields that are the bucket's identity and bookkeeping, not figures. */

export function decodeBucket(doc: BucketCounters): DecodedBucket {
  const known = decoded.get(doc);
  if (known) return known;
  const counters: Record<string, number> = {};
  for (const k in doc) {
    const v = (doc as Record<string, unknown>)[k];
    if (typeof v === 'number' && !BUCKET_META.has(k)) counters[k] = v;
  }
  const chatters = new Map<string, DecodedChatter>();
  for (const [key, c] of Object.entries(doc.chatters ?? {})) {
    chatters.set(key, {
      frt: sortedCounts(c.frt),
      credit: {
        session: { revenueCents: c.revenueCents ?? 0, payments: c.payments ?? 0 },
        sender: { revenueCents: c.senderCents ?? 0, payments: c.senderPayments ?? 0 },
        converter: { revenueCents: c.converterCents ?? 0, payments: c.converterPayments ?? 0 },
      },
    });
  }
  const [frt, wait] = [sortedCounts(doc.frt), sortedCounts(doc.wait)];
  const out: DecodedBucket = { counters, frt, wait, chatters, conv: conversions(doc.conv), camp: conversions(doc.camp), directFans: keysAboveZero(doc.directFans), business: businessOf(doc, frt, wait) };
  decoded.set(doc, out);
  return out;
}

/**
 * Several decoded buckets as one: what adding each to a window would sum, with each histogram
 * merged into one. A window's settled buckets merged once (queries.ts keeps the result while
 * they are unchanged) cost a request one add and one histogram each, not dozens.
 */
export function mergeDecoded(list: readonly DecodedBucket[]): DecodedBucket {
  if (list.length === 1) return list[0] as DecodedBucket;
  const counters: Record<string, number> = {};
  const chatterParts = new Map<string, DecodedChatter[]>();
  const convParts = new Map<string, DecodedConversion[]>();
  const campParts = new Map<string, DecodedConversion[]>();
  const collect = <V>(into: Map<string, V[]>, from: ReadonlyMap<string, V>) => {
    for (const [k, v] of from) {
      const list = into.get(k);
      if (list) list.push(v);
      else into.set(k, [v]);
    }
  };
  for (const b of list) {
    for (const k in b.counters) counters[k] = (counters[k] ?? 0) + (b.counters[k] as number);
    collect(chatterParts, b.chatters);
    collect(convParts, b.conv);
    collect(campParts, b.camp);
  }
  const chatters = new Map<string, DecodedChatter>();
  for (const [k, parts] of chatterParts) {
    const credit = noCredit();
    for (const c of parts) {
      for (const model of CREDIT_MODELS) {
        credit[model].revenueCents += c.credit[model].revenueCents;
        credit[model].payments += c.credit[model].payments;
      }
    }
    chatters.set(k, { frt: mergeCounts(parts.map((c) => c.frt)), credit });
  }
  const conversionsOf = (from: Map<string, DecodedConversion[]>): Map<string, DecodedConversion> => {
    const out = new Map<string, DecodedConversion>();
    for (const [k, parts] of from) {
      const counts: Record<string, number> = {};
      for (const c of parts) for (const f in c.counts) counts[f] = (counts[f] ?? 0) + (c.counts[f] as number);
      out.set(k, { counts, price: mergeCounts(parts.map((c) => c.price)), unlockMin: mergeCounts(parts.map((c) => c.unlockMin)), fans: unionOf(parts.map((c) => c.fans)) });
    }
    return out;
  };
  return {
    counters, frt: mergeCounts(list.map((b) => b.frt)), wait: mergeCounts(list.map((b) => b.wait)), chatters,
    conv: conversionsOf(convParts), camp: conversionsOf(campParts), directFans: unionOf(list.map((b) => b.directFans)), business: mergeBusiness(list),
  };
}

function mergeBusiness(list: readonly DecodedBucket[]): BusinessHistograms | null {
  if (list.every((b) => b.business === null)) return null;
  const keys = new Set<string>();
  for (const b of list) for (const k of b.business?.chatters.keys() ?? []) keys.add(k);
  const chatters = new Map<string, SortedCounts>();
  for (const k of keys) chatters.set(k, mergeCounts(list.map((b) => b.business?.chatters.get(k) ?? b.chatters.get(k)?.frt ?? EMPTY_COUNTS)));
  return { frt: mergeCounts(list.map((b) => b.business?.frt ?? b.frt)), wait: mergeCounts(list.map((b) => b.business?.wait ?? b.wait)), chatters };
}

const EMPTY_COUNTS: SortedCounts = sortedCounts(undefined);

function conversions(tree: BucketCounters['conv']): Map<string, DecodedConversion> {
  const out = new Map<string, DecodedConversion>();
  for (const [key, c] of Object.entries(tree ?? {})) {
    const counts: Record<string, number> = {};
    for (const [k, v] of Object.entries(c)) if (typeof v === 'number') counts[k] = v;
    out.set(key, { counts, price: sortedCounts(c.price), unlockMin: sortedCounts(c.unlockMin), fans: keysAboveZero(c.fans) });
  }
  return out;
}

/** A chatter's or a campaign's conversion figures over a window. */
export interface ConversionWindow {
  readonly counts: Record<string, number>;
  readonly price: HistogramSet;
  readonly unlockMin: HistogramSet;
  readonly fans: DistinctKeys;
}

function addConversions(into: Map<string, ConversionWindow>, from: ReadonlyMap<string, DecodedConversion>): void {
  for (const [key, c] of from) {
    let row = into.get(key);
    if (!row) {
      row = { counts: {}, price: new HistogramSet(), unlockMin: new HistogramSet(), fans: new DistinctKeys() };
      into.set(key, row);
    }
    for (const k in c.counts) row.counts[k] = (row.counts[k] ?? 0) + (c.counts[k] as number);
    row.price.add(c.price);
    row.unlockMin.add(c.unlockMin);
    row.fans.add(c.fans);
  }
}

export interface ChatterWindow {
  readonly frt: HistogramSet;
  readonly credit: CreditSums;
}

export const emptyChatterWindow = (): ChatterWindow => ({ frt: new HistogramSet(), credit: noCredit() });

/**
 * One account's figures over a window, its first responses and waits by `clock`: wall-clock
 * seconds, or seconds in open hours (the same as the wall clock's where the account had no schedule).
 */
export class AccountWindow {
  constructor(readonly clock: 'wall' | 'business' = 'wall') {}

  readonly counters: Record<string, number> = {};
  readonly frt = new HistogramSet();
  readonly wait = new HistogramSet();
  readonly chatters = new Map<string, ChatterWindow>();
  readonly conv = new Map<string, ConversionWindow>();
  readonly camp = new Map<string, ConversionWindow>();
  readonly directFans = new DistinctKeys();

  add(b: DecodedBucket): void {
    this.directFans.add(b.directFans);
    addConversions(this.conv, b.conv);
    addConversions(this.camp, b.camp);
    for (const k in b.counters) this.counters[k] = (this.counters[k] ?? 0) + (b.counters[k] as number);
    const business = this.clock === 'business' ? b.business : null;
    this.frt.add(business?.frt ?? b.frt);
    this.wait.add(business?.wait ?? b.wait);
    for (const [key, c] of b.chatters) {
      let row = this.chatters.get(key);
      if (!row) {
        row = emptyChatterWindow();
        this.chatters.set(key, row);
      }
      row.frt.add(business?.chatters.get(key) ?? c.frt);
      for (const model of CREDIT_MODELS) {
        row.credit[model].revenueCents += c.credit[model].revenueCents;
        row.credit[model].payments += c.credit[model].payments;
      }
    }
  }

  count(field: string): number {
    return this.counters[field] ?? 0;
  }
}
