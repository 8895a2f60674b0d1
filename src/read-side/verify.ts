// What an operator runs to know the figures add up: every account's totals recomputed from the
// documents (sessions, messages, payments, PPVs), compared with the totals rows and with the
// report buckets, each difference named. The totals and the buckets are both derived from document
// changes; the documents are the ground they must agree with.
import { isFirstSessionId } from '../../machines/session-events.js';
import { ReadModelSet } from '../read-models/read-model-set.js';
import { generationStore } from '../definitions/generations.js';
import type { Collection, Doc, DocumentStore } from '../adapters/store/store.js';
import { STATE_ROLLBACKS_COLLECTION, type StateRollbackDoc } from '../processor/rollback.js';
import { SET_ASIDE_COLLECTION, type SetAsideDoc } from '../pipeline/set-aside.js';
import { READ_MODEL_HEALS_COLLECTION, type ReadModelHealDoc } from '../projector/applied-marks.js';
import { accountTotals } from '../read-models/account-stats/queries.js';
import type { ReportBucketDoc } from '../read-models/report-buckets/document.js';
import { ALL_RANGE, idRange } from '../read-models/report-buckets/keys.js';
import type { ReadModelCollections } from '../read-models/read-model-set.js';

/** The figures all three must agree on. */
const TOTALS_FIGURES = ['sessionsOpened', 'sessionsClosed', 'chats', 'messages', 'fanMessages', 'paymentCount', 'revenueCents'] as const;
/** The money figures (issue 50): the totals rows keep none, so the documents and the buckets must agree. */
const MONEY_FIGURES = ['directMessages', 'ppvsSent', 'ppvsUnlocked', 'ppvRevenueCents'] as const;
export const VERIFIED_FIGURES = [...TOTALS_FIGURES, ...MONEY_FIGURES] as const;
export type VerifiedFigure = (typeof VERIFIED_FIGURES)[number];
export type Figures = Record<VerifiedFigure, number>;

export interface Difference {
  readonly accountId: string;
  readonly figure: VerifiedFigure;
  /** Where the figure disagrees with the documents: the totals rows, the report buckets (months) or the all-time buckets. */
  readonly source: 'totals' | 'buckets' | 'all-time';
  readonly documents: number;
  readonly found: number;
}

export interface VerifyReport {
  readonly ok: boolean;
  readonly accounts: number;
  readonly checkedAt: string;
  readonly differences: readonly Difference[];
}

const zero = (): Figures => ({
  sessionsOpened: 0, sessionsClosed: 0, chats: 0, messages: 0, fanMessages: 0, paymentCount: 0, revenueCents: 0, directMessages: 0, ppvsSent: 0, ppvsUnlocked: 0, ppvRevenueCents: 0,
});
const PAGE = 5_000;

/** Every document of the collection matching `filter`, a page at a time by `_id` (memory bounded by the page). */
async function eachPage<T extends Doc>(c: Collection<T>, filter: Record<string, unknown>, projection: Record<string, 1>, visit: (d: T) => void, ids: { $gte: string; $lt: string } | null = null): Promise<void> {
  let after: string | null = null;
  for (;;) {
    const id = after === null ? ids : { $gt: after, ...(ids ? { $lt: ids.$lt } : {}) };
    const page: T[] = await c.find(id === null ? filter : { ...filter, _id: id }, { sort: { _id: 1 }, limit: PAGE, projection: { _id: 1, ...projection } });
    for (const d of page) visit(d);
    if (page.length < PAGE) return;
    after = (page[page.length - 1] as T)._id;
  }
}

/** Each account's figures as the documents have them. */
export async function figuresFromDocuments(rm: ReadModelCollections, scope: Record<string, unknown>, sweptOut?: Map<string, number>): Promise<Map<string, Figures>> {
  const out = new Map<string, Figures>();
  const of = (accountId: string): Figures => {
    let f = out.get(accountId);
    if (!f) {
      f = zero();
      out.set(accountId, f);
    }
    return f;
  };
  await eachPage(rm.sessions, scope, { accountId: 1, status: 1, swept: 1 }, (s) => {
    const f = of(s.accountId);
    f.sessionsOpened++;
    if (s.status === 'closed') f.sessionsClosed++;
    if (s.swept === true && sweptOut) sweptOut.set(s.accountId, (sweptOut.get(s.accountId) ?? 0) + 1);
    // A chat's first session is the first sign of that chat, as the totals count it.
    if (isFirstSessionId(s._id)) f.chats++;
  });
  await eachPage(rm.messages, scope, { accountId: 1, sender: 1, sentAt: 1, tombstone: 1, queueId: 1 }, (m) => {
    if (m.tombstone || m.sentAt === undefined) return;
    const f = of(m.accountId);
    f.messages++;
    if (m.sender === 'fan') f.fanMessages++;
    if (m.sender === 'human' && m.queueId === undefined) f.directMessages++;
  });
  await eachPage(rm.ppvs, scope, { accountId: 1, send: 1, unlock: 1, unlinked: 1 }, (p) => {
    const f = of(p.accountId);
    if (p.send && !p.send.free) f.ppvsSent++;
    if (p.unlock) {
      f.ppvsUnlocked++;
      if (p.send && p.unlinked === undefined) f.ppvRevenueCents += p.send.priceCents;
    }
  });
  await eachPage(rm.payments, scope, { accountId: 1, grossCents: 1 }, (p) => {
    const f = of(p.accountId);
    f.paymentCount++;
    f.revenueCents += p.grossCents;
  });
  return out;
}

/**
 * Each account's figures summed over its report buckets of one level (every level holds every
 * contribution): the months (the fewest time buckets that do), or the all-time bucket.
 */
export async function figuresFromBuckets(buckets: Collection<ReportBucketDoc>, scope: Record<string, unknown>, level: 'm' | 'all'): Promise<Map<string, Figures>> {
  const out = new Map<string, Figures>();
  const fields = { accountId: 1, opened: 1, openedClosed: 1, chats: 1, messages: 1, fanMessages: 1, payments: 1, revenueCents: 1, conv: 1, camp: 1, ppvUnlinkedUnlocks: 1, ppvUnseenUnlocks: 1 } as const;
  // By `_id`: the fan sets beside the months share their level, not their ids' prefix.
  await eachPage(buckets, scope, fields, (b) => {
    const f = out.get(b.accountId) ?? zero();
    f.sessionsOpened += b.opened ?? 0;
    f.sessionsClosed += b.openedClosed ?? 0;
    f.chats += b.chats ?? 0;
    f.messages += b.messages ?? 0;
    f.fanMessages += b.fanMessages ?? 0;
    f.paymentCount += b.payments ?? 0;
    f.revenueCents += b.revenueCents ?? 0;
    f.ppvsUnlocked += (b.ppvUnlinkedUnlocks ?? 0) + (b.ppvUnseenUnlocks ?? 0);
    for (const tree of [b.conv, b.camp]) {
      for (const c of Object.values(tree ?? {})) {
        f.directMessages += c.direct ?? 0;
        f.ppvsSent += c.ppvSent ?? 0;
        f.ppvsUnlocked += c.unlocked ?? 0;
        f.ppvRevenueCents += c.ppvRevenueCents ?? 0;
      }
    }
    out.set(b.accountId, f);
  }, level === 'm' ? idRange('m', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER) : ALL_RANGE);
  return out;
}

/**
 * Every difference between the documents' figures and the totals', the months' and the all-time buckets'.
 * `swept`: sessions per account the projector closed at their deadline ahead of the log's close
 * (projector/lapse-sweep.ts). The buckets count them closed, as the documents do; the totals
 * rows, folded from events alone, still count them open.
 */
export function compareFigures(documents: Map<string, Figures>, totals: Map<string, Figures>, buckets: Map<string, Figures>, allTime: Map<string, Figures>, swept: ReadonlyMap<string, number> = new Map()): Difference[] {
  const accounts = [...new Set([...documents.keys(), ...totals.keys(), ...buckets.keys(), ...allTime.keys()])].sort();
  const out: Difference[] = [];
  for (const accountId of accounts) {
    const docs = documents.get(accountId) ?? zero();
    const asLogged = { ...docs, sessionsClosed: docs.sessionsClosed - (swept.get(accountId) ?? 0) };
    const sources = [['totals', totals.get(accountId) ?? zero(), TOTALS_FIGURES, asLogged], ['buckets', buckets.get(accountId) ?? zero(), VERIFIED_FIGURES, docs], ['all-time', allTime.get(accountId) ?? zero(), VERIFIED_FIGURES, docs]] as const;
    for (const [source, have, figures, want] of sources) {
      for (const figure of figures) {
        if (want[figure] !== have[figure]) out.push({ accountId, figure, source, documents: want[figure], found: have[figure] });
      }
    }
  }
  return out;
}

/**
 * The reads are not one snapshot. A projector's sweep of lapsed sessions (projector/lapse-sweep.ts)
 * that lands between them moves closed counts alone, so a comparison whose only differences are
 * those is made again, up to twice, before it is reported.
 */
export async function verifyFigures(rm: ReadModelCollections, scope: Record<string, unknown> = {}, now = Date.now()): Promise<VerifyReport> {
  let report = await verifyOnce(rm, scope, now);
  for (let again = 0; again < 2 && !report.ok && report.differences.every((d) => d.figure === 'sessionsClosed'); again++) report = await verifyOnce(rm, scope, now);
  return report;
}

async function verifyOnce(rm: ReadModelCollections, scope: Record<string, unknown>, now: number): Promise<VerifyReport> {
  const swept = new Map<string, number>();
  const documents = await figuresFromDocuments(rm, scope, swept);
  const totals = new Map(accountTotals(await rm.account_stats.find(scope)).map((t) => [t.accountId, {
    ...zero(), sessionsOpened: t.sessionsOpened, sessionsClosed: t.sessionsClosed, chats: t.chats, messages: t.messages, fanMessages: t.fanMessages,
    paymentCount: t.paymentCount, revenueCents: t.revenueCents,
  }]));
  const buckets = await figuresFromBuckets(rm.report_buckets, scope, 'm');
  const allTime = await figuresFromBuckets(rm.report_buckets, scope, 'all');
  const differences = compareFigures(documents, totals, buckets, allTime, swept);
  const accounts = new Set([...documents.keys(), ...totals.keys(), ...buckets.keys(), ...allTime.keys()]).size;
  return { ok: differences.length === 0, accounts, checkedAt: new Date(now).toISOString(), differences };
}

/** How many of each fault verify lists (the counts are whole). */
const FAULTS_LISTED = 20;

export interface StateRollbackView {
  readonly chatKey: string;
  readonly partition: number;
  readonly storedOffset: number;
  readonly storedSeq: number | null;
  readonly cachedOffset: number;
  readonly cachedSeq: number | null;
  readonly detectedAt: string;
  /** Null while the chat waits to be re-derived (its next record does it). */
  readonly recoveredAt: string | null;
  readonly recordsRederived: number | null;
  /** Records of the chat the log no longer held when it was re-derived: its state went on without them. */
  readonly recordsMissing: number;
}

export interface EventConflictView {
  readonly id: string;
  readonly eventId: string | null;
  readonly chatKey: string | null;
  readonly error: string;
}

export interface ReadModelHealView {
  readonly version: number;
  readonly partition: number;
  /** The applied mark found: the first `session-events` offset folded again. */
  readonly from: number;
  /** Where the consumer resumed. */
  readonly to: number;
  readonly detectedAt: string;
  /** Null until the round that folded the gap again is written. */
  readonly recoveredAt: string | null;
  /** Events of the gap the log no longer held: the read models went on without them. */
  readonly eventsMissing: number;
}

/**
 * What the pipeline noticed of lost writes: chat states the store handed back older than the
 * processor had stored (re-derived from inbound: ../processor/rollback.ts), and session events
 * whose id came back with other content (set aside, never folded: ../projector/event-digests.ts).
 * A recovered rollback leaves the figures right; a conflict means an input's effect is missing.
 */
export interface PipelineFaults {
  readonly stateRollbacks: { readonly count: number; readonly unrecovered: number; readonly incomplete: number; readonly items: readonly StateRollbackView[] };
  /** Read models found behind their applied mark (the store lost projector rounds) and folded again from the log (../projector/applied-marks.ts); not per account. */
  readonly readModelHeals: { readonly count: number; readonly unrecovered: number; readonly incomplete: number; readonly items: readonly ReadModelHealView[] };
  readonly eventConflicts: { readonly count: number; readonly items: readonly EventConflictView[] };
}

export async function pipelineFaults(store: DocumentStore, accountId?: string): Promise<PipelineFaults> {
  const mine = (chatKey: string | null): boolean => accountId === undefined || (chatKey ?? '').startsWith(`${accountId}:`);
  const iso = (ms: number | null | undefined): string | null => (typeof ms === 'number' ? new Date(ms).toISOString() : null);
  // Rare documents (one per lost state, one per conflicting event): read whole and scoped here.
  // The live definitions generation's chat states are the ones that matter (src/definitions/generations.ts).
  const states = generationStore(store, (await new ReadModelSet(store).pointer()).generation);
  const rollbacks = (await states.collection<StateRollbackDoc>(STATE_ROLLBACKS_COLLECTION).find({}, { sort: { detectedAt: -1 } })).filter((r) => mine(r.chatKey));
  const conflicts = (await store.collection<SetAsideDoc>(SET_ASIDE_COLLECTION).find({ stage: 'conflict' }, { sort: { setAsideAt: -1 } })).filter((c) => mine(c.chatKey));
  const heals = await store.collection<ReadModelHealDoc>(READ_MODEL_HEALS_COLLECTION).find({}, { sort: { detectedAt: -1 } });
  return {
    readModelHeals: {
      count: heals.length,
      unrecovered: heals.filter((h) => h.recoveredAt === null).length,
      incomplete: heals.filter((h) => h.eventsMissing > 0).length,
      items: heals.slice(0, FAULTS_LISTED).map((h) => ({
        version: h.version, partition: h.partition, from: h.from, to: h.to, detectedAt: iso(h.detectedAt) ?? '', recoveredAt: iso(h.recoveredAt), eventsMissing: h.eventsMissing,
      })),
    },
    stateRollbacks: {
      count: rollbacks.length,
      unrecovered: rollbacks.filter((r) => !r.recoveredAt).length,
      incomplete: rollbacks.filter((r) => (r.recordsMissing ?? 0) > 0).length,
      items: rollbacks.slice(0, FAULTS_LISTED).map((r) => ({
        chatKey: r.chatKey, partition: r.partition, storedOffset: r.storedOffset, storedSeq: r.storedSeq, cachedOffset: r.knownOffset, cachedSeq: r.knownSeq,
        detectedAt: iso(r.detectedAt) ?? '', recoveredAt: iso(r.recoveredAt), recordsRederived: r.recordsRederived ?? null,
        recordsMissing: r.recordsMissing ?? 0,
      })),
    },
    eventConflicts: {
      count: conflicts.length,
      items: conflicts.slice(0, FAULTS_LISTED).map((c) => ({ id: c._id, eventId: c.conflict?.eventId ?? null, chatKey: c.chatKey, error: c.error })),
    },
  };
}
