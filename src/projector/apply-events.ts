// Applies a run of session events to one version of the read models: load every document
// the events touch, fold in memory, write what changed. The live projector and the replay
// job both use it, so a replay builds exactly what live projection builds.
import type { BulkOp, Collection, Doc } from '../adapters/store/store.js';
import { foldAccountStats, foldChat, foldMessage, foldPayment, foldSession, positionedTargets, type Positioned } from './folds.js';
import { READ_MODELS, type ReadModel } from './read-models.js';
import type { ReadModelCollections } from './read-model-set.js';

type Fold = (doc: Doc | undefined, p: Positioned) => Doc | undefined;

const FOLDS: Record<ReadModel, Fold> = {
  sessions: (d, p) => foldSession(d as never, p.event),
  messages: (d, p) => foldMessage(d as never, p.event),
  payments: (d, p) => foldPayment(d as never, p.event),
  chats: (d, p) => foldChat(d as never, p.event),
  account_stats: (d, p) => foldAccountStats(d as never, p),
};

// In dependency order: a session, chat or payment never points at a message not stored yet.
const WRITE_ORDER: readonly ReadModel[] = ['messages', 'payments', 'chats', 'sessions', 'account_stats'];

export async function applyEvents(rm: ReadModelCollections, events: readonly Positioned[]): Promise<void> {
  if (events.length === 0) return;
  const ids = new Map<ReadModel, Set<string>>(READ_MODELS.map((m) => [m, new Set<string>()]));
  for (const p of events) for (const t of positionedTargets(p)) ids.get(t.collection)?.add(t.id);
  const docs = new Map<ReadModel, Map<string, Doc>>();
  await Promise.all(READ_MODELS.map(async (m) => { docs.set(m, await load(rm[m] as unknown as Collection<Doc>, ids.get(m) ?? new Set())); }));
  const original = new Map<ReadModel, Map<string, Doc>>([...docs].map(([m, d]) => [m, new Map(d)]));
  const changed = new Map<ReadModel, Map<string, Doc>>(READ_MODELS.map((m) => [m, new Map()]));
  for (const p of events) {
    for (const t of positionedTargets(p)) {
      const next = FOLDS[t.collection](docs.get(t.collection)?.get(t.id), p);
      if (!next) continue;
      docs.get(t.collection)?.set(t.id, next);
      changed.get(t.collection)?.set(t.id, next);
    }
  }
  // Every write is conditional on the revision it was read at (or is an insert), so a
  // projector that lost its partition, or a concurrent one, cannot overwrite newer work: the
  // whole application fails with WriteConflictError and is retried from a fresh read.
  await rm.writeAll(WRITE_ORDER.map((model) => {
    const ops = [...(changed.get(model)?.entries() ?? [])].map(([id, next]): BulkOp<Doc> => {
      const before = original.get(model)?.get(id);
      if (before === undefined) return { insertOne: { document: { ...next, _rev: 1 } } };
      const rev = typeof before._rev === 'number' ? before._rev : null;
      return { replaceOne: { filter: { _id: id, _rev: rev }, replacement: { ...next, _rev: (rev ?? 0) + 1 }, requireMatch: true } };
    });
    return { model, ops };
  }));
}

async function load(c: Collection<Doc>, ids: Set<string>): Promise<Map<string, Doc>> {
  const out = new Map<string, Doc>();
  if (ids.size === 0) return out;
  for (const d of await c.find({ _id: { $in: [...ids] } })) out.set(d._id, d);
  return out;
}
