// Folds `session-events` into the read models. Batches arrive as an RxJS stream and are
// applied strictly one after another; a batch's offsets are committed only once its
// documents are written, and every document skips events it has already applied.
import { Subject, concatMap, defer, catchError, EMPTY, tap, type Subscription } from 'rxjs';
import type { Consumer, Log, RecordBatch } from '../adapters/log/log.js';
import type { Collection, Doc, DocumentStore } from '../adapters/store/store.js';
import type { SessionEvent } from '../../machines/session-events.js';
import type { Logger } from '../support/logger.js';
import type { Topology } from '../topology.js';
import { foldMessage, foldPayment, foldSession, targetsOf } from './folds.js';
import { MESSAGES, PAYMENTS, READ_MODELS, SESSIONS, type ReadModel } from './read-models.js';

const FOLDS = { sessions: foldSession, messages: foldMessage, payments: foldPayment } as const;
const READ_MODELS_WRITE_ORDER: readonly ReadModel[] = [MESSAGES, PAYMENTS, SESSIONS];

interface PendingBatch {
  readonly batch: RecordBatch;
  readonly done: (err?: unknown) => void;
}

export interface ProjectorCounters {
  eventsApplied: number;
  eventsUnreadable: number;
  batches: number;
}

export class Projector {
  private readonly collections: Record<ReadModel, Collection<Doc>>;
  private readonly batches = new Subject<PendingBatch>();
  private subscription?: Subscription;
  private consumer?: Consumer;
  readonly counters: ProjectorCounters = { eventsApplied: 0, eventsUnreadable: 0, batches: 0 };

  constructor(private readonly log: Log, store: DocumentStore, private readonly topology: Topology, private readonly logger: Logger) {
    this.collections = { sessions: store.collection(SESSIONS), messages: store.collection(MESSAGES), payments: store.collection(PAYMENTS) };
  }

  async start(): Promise<void> {
    await Promise.all([
      this.collections.sessions.createIndex({ keys: { awaiting: 1, waitingSince: 1 } }),
      this.collections.sessions.createIndex({ keys: { openedAt: -1 } }),
      this.collections.messages.createIndex({ keys: { chatKey: 1, sentAt: 1 } }),
      this.collections.messages.createIndex({ keys: { chatId: 1, sentAt: 1 } }),
      this.collections.payments.createIndex({ keys: { chatterId: 1, paidAt: 1 } }),
    ]);
    this.subscription = this.batches
      .pipe(
        concatMap(({ batch, done }) =>
          defer(() => this.apply(batch)).pipe(
            tap({ next: () => done(), error: (err: unknown) => done(err) }),
            catchError(() => EMPTY),
          ),
        ),
      )
      .subscribe();
    this.consumer = await this.log.consume({
      groupId: this.topology.projectorGroup,
      topics: [this.topology.sessionEvents],
      fromBeginning: true,
      onBatch: (batch) => new Promise<void>((resolve, reject) => {
        this.batches.next({ batch, done: (err) => (err === undefined ? resolve() : reject(err)) });
      }),
      onError: (err, batch) => this.logger.error({ err, partition: batch.partition }, 'projector batch failed; retrying'),
    });
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
    this.subscription?.unsubscribe();
  }

  private parse(batch: RecordBatch): SessionEvent[] {
    const events: SessionEvent[] = [];
    for (const r of batch.records) {
      try {
        events.push(JSON.parse(r.value.toString('utf8')) as SessionEvent);
      } catch {
        this.counters.eventsUnreadable++;
        this.logger.warn({ partition: r.partition, offset: r.offset }, 'unreadable session event skipped');
      }
    }
    return events;
  }

  private async apply(batch: RecordBatch): Promise<void> {
    const events = this.parse(batch);
    const ids = new Map<ReadModel, Set<string>>(READ_MODELS.map((m) => [m, new Set<string>()]));
    for (const e of events) for (const t of targetsOf(e)) ids.get(t.collection)?.add(t.id);
    const docs = new Map<ReadModel, Map<string, Doc>>();
    await Promise.all(READ_MODELS.map(async (m) => { docs.set(m, await load(this.collections[m], ids.get(m) ?? new Set())); }));
    const changed = new Map<ReadModel, Map<string, Doc>>(READ_MODELS.map((m) => [m, new Map()]));
    for (const e of events) {
      for (const t of targetsOf(e)) {
        const current = docs.get(t.collection)?.get(t.id);
        const next = FOLDS[t.collection](current as never, e);
        if (!next) continue;
        docs.get(t.collection)?.set(t.id, next);
        changed.get(t.collection)?.set(t.id, next);
      }
    }
    // In dependency order: a session or payment never points at a message that is not stored yet.
    for (const m of READ_MODELS_WRITE_ORDER) {
      await this.collections[m].bulkWrite([...(changed.get(m)?.values() ?? [])].map(replaceOp));
    }
    this.counters.eventsApplied += events.length;
    this.counters.batches++;
  }
}

async function load<T extends Doc>(c: Collection<T>, ids: Set<string>): Promise<Map<string, T>> {
  const out = new Map<string, T>();
  if (ids.size === 0) return out;
  for (const d of await c.find({ _id: { $in: [...ids] } })) out.set(d._id, d);
  return out;
}

function replaceOp<T extends Doc>(d: T) {
  return { replaceOne: { filter: { _id: d._id }, replacement: d, upsert: true } } as const;
}
