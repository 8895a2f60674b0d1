// Folds `session-events` into the read models. Batches arrive as an RxJS stream and are
// applied strictly one after another; a batch's offsets are committed only once its
// documents are written, and every document skips events it has already applied.
import { Subject, concatMap, defer, catchError, EMPTY, tap, type Subscription } from 'rxjs';
import type { Consumer, Log, RecordBatch } from '../adapters/log/log.js';
import type { Collection, Doc, DocumentStore } from '../adapters/store/store.js';
import type { SessionEvent } from '../../machines/session-events.js';
import type { Logger } from '../support/logger.js';
import type { Topology } from '../topology.js';
import { foldMessage, foldSession, targetsOf } from './folds.js';
import { MESSAGES, SESSIONS, type MessageDoc, type SessionDoc } from './read-models.js';

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
  private readonly sessions: Collection<SessionDoc>;
  private readonly messages: Collection<MessageDoc>;
  private readonly batches = new Subject<PendingBatch>();
  private subscription?: Subscription;
  private consumer?: Consumer;
  readonly counters: ProjectorCounters = { eventsApplied: 0, eventsUnreadable: 0, batches: 0 };

  constructor(private readonly log: Log, store: DocumentStore, private readonly topology: Topology, private readonly logger: Logger) {
    this.sessions = store.collection<SessionDoc>(SESSIONS);
    this.messages = store.collection<MessageDoc>(MESSAGES);
  }

  async start(): Promise<void> {
    await Promise.all([
      this.sessions.createIndex({ keys: { awaiting: 1, waitingSince: 1 } }),
      this.sessions.createIndex({ keys: { openedAt: -1 } }),
      this.messages.createIndex({ keys: { chatKey: 1, sentAt: 1 } }),
      this.messages.createIndex({ keys: { chatId: 1, sentAt: 1 } }),
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
    const sessionIds = new Set<string>();
    const messageIds = new Set<string>();
    for (const e of events) {
      for (const t of targetsOf(e)) (t.collection === SESSIONS ? sessionIds : messageIds).add(t.id);
    }
    const [sessionDocs, messageDocs] = await Promise.all([
      load(this.sessions, sessionIds),
      load(this.messages, messageIds),
    ]);
    const changedSessions = new Map<string, SessionDoc>();
    const changedMessages = new Map<string, MessageDoc>();
    for (const e of events) {
      for (const t of targetsOf(e)) {
        if (t.collection === SESSIONS) {
          const next = foldSession(sessionDocs.get(t.id), e);
          if (next) { sessionDocs.set(t.id, next); changedSessions.set(t.id, next); }
        } else {
          const next = foldMessage(messageDocs.get(t.id), e);
          if (next) { messageDocs.set(t.id, next); changedMessages.set(t.id, next); }
        }
      }
    }
    // Messages first: a session never points at a message that is not there yet.
    await this.messages.bulkWrite([...changedMessages.values()].map(replaceOp));
    await this.sessions.bulkWrite([...changedSessions.values()].map(replaceOp));
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
