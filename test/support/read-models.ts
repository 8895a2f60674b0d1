// Canonical view of the read models: every document of every read model, sorted, hashed.
import { createHash } from 'node:crypto';
import type { DocumentStore } from '../../src/adapters/store/store.js';
import { ALL_READ_MODELS, REPORT_BUCKETS } from '../../src/read-models/names.js';
import { ReadModelSet, collectionName } from '../../src/read-models/read-model-set.js';
import { eventually } from './wait.js';
import { pastDeadlineFilter } from '../../src/domain/session-deadline.js';

// Idempotence bookkeeping (the last input offset a row applied), not meaning: a webhook the
// platform had to send twice shifts later offsets without changing any count.
const BOOKKEEPING = new Set(['appliedOffset', 'appliedIds', '_rev']);

/** JSON with object keys sorted, so equal documents serialise equally whatever the store returns. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).filter((k) => !BOOKKEEPING.has(k)).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

export async function readModelDocs(store: DocumentStore): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  const version = await new ReadModelSet(store).activeVersion();
  for (const name of ALL_READ_MODELS) out[name] = await store.collection(collectionName(name, version)).find({}, { sort: { _id: 1 } });
  out[REPORT_BUCKETS] = (out[REPORT_BUCKETS] ?? []).map((d) => withoutZeros(d)).filter((d) => Object.keys(d as object).some((k) => !['_id', 'level', 'start', 'accountId'].includes(k)));
  return out;
}

/**
 * A bucket's meaning without its bookkeeping: its partition marks and its time bounds go (the
 * bounds only widen, so a session that moved buckets on its way widens one it left), and so do
 * counts that came back to zero (it leaves those behind too), so the same facts in another order
 * compare equal.
 */
export function withoutZeros(v: unknown): unknown {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === 'w' || k === 'loAt' || k === 'hiAt' || x === 0) continue;
    const inner = withoutZeros(x);
    if (inner && typeof inner === 'object' && !Array.isArray(inner) && Object.keys(inner).length === 0) continue;
    out[k] = inner;
  }
  return out;
}

export async function readModelHash(store: DocumentStore): Promise<string> {
  return createHash('sha256').update(canonical(await readModelDocs(store))).digest('hex');
}

interface Health { components: Record<string, { lag?: number | null; enabled?: boolean }> }

/**
 * Waits until the processor and projector have nothing left to read, then until the hash holds
 * still for `stableMs`: longer than the projector's sweep period (a second), so sessions past
 * their deadline have been closed in the read models too (src/projector/lapse-sweep.ts). `service` is the API's base URL, or a reader of its health (an inject()
 * harness, whose stages commit in this process after their writes, so a short look suffices).
 */
export async function settledHash(service: string | (() => Promise<unknown>), store: DocumentStore, timeoutMs = 120_000, stableMs = 1_500): Promise<string> {
  const readHealth = typeof service === 'string' ? async () => (await fetch(`${service}/api/health`)).json() : service;
  let last: Health | undefined;
  await eventually(async () => {
    const h = (await readHealth()) as Health;
    last = h;
    // Lag comes from the log's committed offsets, so it is right even when other processes consume.
    const idle = (c: { lag?: number | null } | undefined): boolean => c?.lag === 0;
    return idle(h.components.processor) && idle(h.components.projector) ? true : undefined;
  }, timeoutMs, 'pipeline to drain').catch((err: unknown) => {
    throw new Error(`${String(err)}; last health: ${JSON.stringify(last?.components)}`);
  });
  let previous = await readModelHash(store);
  return eventually(async () => {
    await new Promise((r) => setTimeout(r, stableMs));
    const next = await readModelHash(store);
    if (next === previous) return next;
    previous = next;
    return undefined;
  }, timeoutMs, 'read models to settle');
}

/**
 * Waits until the projector's sweep (src/projector/lapse-sweep.ts) has closed every session of
 * the active read models past its deadline: read models settle when that is done too.
 */
export async function lapsedSwept(store: DocumentStore, timeoutMs = 60_000): Promise<void> {
  const models = new ReadModelSet(store);
  await eventually(async () => {
    const rm = models.at(await models.activeVersion());
    const left = await rm.sessions.find(pastDeadlineFilter(Date.now()), { limit: 1, projection: { _id: 1 } });
    return left.length === 0 ? true : undefined;
  }, timeoutMs, 'sessions past their deadline swept');
}

/** Documents that differ between two snapshots, a few per read model, to explain a hash mismatch. */
export function differences(expected: Record<string, unknown[]>, actual: Record<string, unknown[]>, perModel = 3): string[] {
  const out: string[] = [];
  for (const name of Object.keys(expected)) {
    const mine = new Map((actual[name] ?? []).map((d) => [(d as { _id: string })._id, canonical(d)]));
    const theirs = new Set((expected[name] ?? []).map((d) => (d as { _id: string })._id));
    const differing = (expected[name] ?? []).filter((d) => mine.get((d as { _id: string })._id) !== canonical(d)).slice(0, perModel);
    for (const d of differing) out.push(`${name}: expected ${canonical(d)}\n   got ${mine.get((d as { _id: string })._id) ?? 'nothing'}`);
    const extra = [...mine.keys()].filter((id) => !theirs.has(id)).slice(0, perModel);
    for (const id of extra) out.push(`${name}: unexpected ${mine.get(id)}`);
  }
  return out;
}
