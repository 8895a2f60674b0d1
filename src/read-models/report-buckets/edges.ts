// The raw documents at a window's partial ends. An end that falls inside an hour cannot be read
// from that hour's bucket, so the documents carrying times in it are read and passed through
// the contributions the projector folds. A dashboard asks for "the last 7 days" again and
// again, so the same settled hour is an edge on every request: its contributions are kept,
// for as long as the hour's buckets (one per account) are the very objects a shared read
// returned when they were computed. Any change to a document contributing to that hour
// rewrites one of those buckets (its marks at least), and the store then returns new objects.
// The hour being written now is always read afresh, and so is every hour on a store that
// returns new objects on every read (MongoDB): nothing is kept there. Either way, an end whose
// hour's buckets say (by their time bounds, loAt and hiAt) that all they hold lies inside it
// is read from those buckets: "until now" usually is such an end.
import type { Filter } from '../../adapters/store/store.js';
import type { ReadModelCollections } from '../read-model-set.js';
import { incrementsOf, type BucketedModel, type Increment } from './contributions.js';
import { idRange, type Family } from './keys.js';
import { BUCKET_META, type ReportBucketDoc } from './document.js';

/**
 * What a report needs summed: first-response outcomes, session counts, messages, payments,
 * conversion (direct messages, PPVs, campaigns), the fans direct messages went to.
 */
export type Part = 'sla' | 'sessions' | 'messages' | 'payments' | 'conversion' | 'fans';

const PART_OF_FIELD: readonly [RegExp, Part][] = [
  // Before `conversion`, whose prefix it shares.
  [/^directFans\.|^conv\.[^.]+\.fans\./, 'fans'],
  // The open-hours corrections (`bfrt`, `bwait`, `chatters.*.bfrt`) with the first responses they correct.
  [/^(frt|wait|bfrt|bwait)\.|^missed$|^chatters\.[^.]+\.b?frt\./, 'sla'],
  [/^(opened|openedClosed|chats)$/, 'sessions'],
  [/^(messages|fanMessages)$/, 'messages'],
  [/^(revenueCents|payments)$|^chatters\.[^.]+\.(revenueCents|payments|senderCents|senderPayments|converterCents|converterPayments)$/, 'payments'],
  [/^(conv|camp|directFans)\.|^ppvUn/, 'conversion'],
];

export const partOf = (field: string): Part | undefined => PART_OF_FIELD.find(([re]) => re.test(field))?.[1];

const HOUR = 3_600_000;
/** Hours × parts kept (a dashboard's edges are a handful; this bounds what odd windows leave). */
const KEPT = 256;

interface Seen {
  readonly buckets: readonly object[];
  /** The whole hour's increments of the part, every account; absent until seen twice unchanged. */
  readonly increments?: readonly Increment[];
}

const seen = new Map<string, Seen>();

/** Whether two reads handed out the very same objects (a store's shared reads: unchanged documents). */
export function sameObjects(a: readonly (object | undefined)[], b: readonly (object | undefined)[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function remember(key: string, value: Seen): void {
  seen.delete(key);
  seen.set(key, value);
  for (const k of seen.keys()) {
    if (seen.size <= KEPT) break;
    seen.delete(k);
  }
}

function within(d: ReportBucketDoc, a: number, b: number): boolean {
  return typeof d.loAt === 'number' && typeof d.hiAt === 'number' && d.loAt >= a && d.hiAt < b;
}

/** The buckets' figures of the part as increments at `at` (any time inside the edge). */
function bucketIncrements(buckets: readonly ReportBucketDoc[], part: Part, at: number): Increment[] {
  const out: Increment[] = [];
  const walk = (accountId: string, value: unknown, path: string): void => {
    if (typeof value === 'number') {
      if (partOf(path) === part) out.push({ accountId, at, field: path, amount: value });
    } else if (typeof value === 'object' && value !== null) {
      for (const [k, v] of Object.entries(value)) walk(accountId, v, `${path}.${k}`);
    }
  };
  for (const d of buckets) {
    for (const [k, v] of Object.entries(d)) if (!BUCKET_META.has(k)) walk(d.accountId, v, k);
  }
  return out;
}

/** The part's increments of the documents whose time for it lies in [a, b), of the accounts `inScope` selects. */
async function readRaw(rm: ReadModelCollections, part: Part, a: number, b: number, inScope: Filter): Promise<Increment[]> {
  const range = { $gte: a, $lt: b };
  const sources: { model: BucketedModel; docs: Promise<unknown[]> }[] =
    part === 'sla' ? [{ model: 'sessions', docs: rm.sessions.find({ ...inScope, firstFanMessageAt: range }) }]
      : part === 'sessions' ? [{ model: 'sessions', docs: rm.sessions.find({ ...inScope, openedAt: range }) }]
        : part === 'messages' ? [{ model: 'messages', docs: rm.messages.find({ ...inScope, sentAt: range }, { projection: MESSAGE_FIELDS }) }]
          : part === 'payments' ? [{ model: 'payments', docs: rm.payments.find({ ...inScope, paidAt: range }) }]
            : part === 'fans' ? [{ model: 'messages', docs: rm.messages.find({ ...inScope, sentAt: range }, { projection: MESSAGE_FIELDS }) }]
              : [
                // With their text: the quality rules count on it.
                { model: 'messages', docs: rm.messages.find({ ...inScope, sentAt: range }, { projection: { ...MESSAGE_FIELDS, text: 1, bannedPhrases: 1 } }) },
                // A PPV sent in the edge, or unlocked in it (read once if both).
                { model: 'ppvs', docs: Promise.all([rm.ppvs.find({ ...inScope, sentAt: range }), rm.ppvs.find({ ...inScope, unlockedAt: range })]).then(([x, y]) => [...x, ...y.filter((d) => !(typeof d.sentAt === 'number' && d.sentAt >= a && d.sentAt < b))]) },
              ];
  const out: Increment[] = [];
  for (const source of sources) {
    for (const d of await source.docs) {
      for (const i of incrementsOf(source.model, d)) if (i.at !== null && i.at >= a && i.at < b && partOf(i.field) === part) out.push(i);
    }
  }
  return out;
}

/** What a message contributes from (contributions.ts messageIncrements). */
const MESSAGE_FIELDS = { accountId: 1, sender: 1, sentAt: 1, tombstone: 1, chatterId: 1, queueId: 1, chatId: 1 } as const;

/**
 * The part's increments with times in [a, b) (inside one hour), of the accounts `inScope`
 * selects or more: callers filter by account.
 */
export async function edgeIncrements(rm: ReadModelCollections, part: Part, a: number, b: number, inScope: Filter, now: number): Promise<readonly Increment[]> {
  const hour = Math.floor(a / HOUR);
  const family: Family = part === 'fans' ? 'fans' : 'figures';
  const hourBuckets = () => rm.report_buckets.find({ _id: idRange('h', hour, hour + 1, family) }, { shared: true });
  const buckets = await hourBuckets();
  // Everything the hour's buckets ever took lies inside [a, b): they are the edge. This is what
  // spares a dashboard's "until now" the hour being written, whose documents grow with ingest.
  if (buckets.length > 0 && buckets.every((d) => within(d, a, b))) return bucketIncrements(buckets, part, a);
  if (hour === Math.floor(now / HOUR)) return readRaw(rm, part, a, b, inScope);
  const key = `${rm.report_buckets.name}|${hour}|${part}`;
  const known = seen.get(key);
  if (known && sameObjects(known.buckets, buckets)) {
    if (known.increments) return known.increments;
    // Unchanged since the last request: worth reading the whole hour once and keeping it.
    const increments = await readRaw(rm, part, hour * HOUR, (hour + 1) * HOUR, {});
    // Kept only if nothing changed while it was read (MongoDB lands buckets before documents).
    if (sameObjects(buckets, await hourBuckets())) remember(key, { buckets, increments });
    return increments;
  }
  remember(key, { buckets });
  return readRaw(rm, part, a, b, inScope);
}
