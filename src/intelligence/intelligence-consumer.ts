// Intelligence off the ingest path: a reactor on `session-events` that analyses a session when
// it closes (rules and model) or when a fan message or a pay-per-view might change what the
// rules say (rules only), and a sweep keeps stored alerts true to the clock. It reads the read
// models, so each round waits until the projector has written its events: in the same process
// the projector's rounds wake it (ProjectionProgress); run apart from the projector, it checks
// the projector's committed offsets. It keeps its own consumer group, so a crash between the
// projector's commit and an analysis re-delivers the events instead of losing the analysis.
import { BehaviorSubject, exhaustMap, filter, firstValueFrom, of, takeUntil, timeout, timer } from 'rxjs';
import type { Log, RecordBatch } from '../adapters/log/log.js';
import { parseEvents } from '../projector/projector.js';
import type { ProjectionProgress } from '../projector/progress.js';
import type { Stage } from '../pipeline/stage.js';
import type { Logger } from '../support/logger.js';
import type { Topology } from '../topology.js';
import type { Intelligence } from './intelligence.js';
import { churnPhrase } from './rules.js';

/** How long a round waits for the projector before analysing what is there. */
const PROJECTION_WAIT_MS = 30_000;
/** Polling interval when the projector runs in another process. */
const REMOTE_POLL_MS = 100;

export class IntelligenceConsumer implements Stage {
  readonly role = 'intelligence';
  /** A new deployment analyses what happens from now on, not its whole history (model calls cost money). */
  readonly startFrom = 'end';
  readonly group: string;
  readonly topics: readonly string[];
  private timer?: NodeJS.Timeout;
  private sweeping: Promise<void> | null = null;
  private readonly stopping$ = new BehaviorSubject(false);

  constructor(
    private readonly log: Log,
    private readonly topology: Topology,
    private readonly intelligence: Intelligence,
    private readonly sweepMs: number,
    private readonly logger: Logger,
    /** The projector's progress when it runs in this process; null when it runs elsewhere. */
    private readonly progress: ProjectionProgress | null,
  ) {
    this.group = topology.intelligenceGroup;
    this.topics = [topology.sessionEvents];
  }

  async prepare(): Promise<void> {
    await this.intelligence.ensureIndexes();
    if (this.sweepMs > 0) {
      this.timer = setInterval(() => {
        if (this.sweeping) return;
        this.sweeping = this.intelligence.sweep()
          .catch((err: unknown) => this.logger.error({ err }, 'alert sweep failed'))
          .finally(() => { this.sweeping = null; });
      }, this.sweepMs);
      this.timer.unref();
    }
  }

  failed(err: unknown): void {
    this.logger.error({ err }, 'intelligence round failed; retrying');
  }

  async handleBatch(batches: readonly RecordBatch[]): Promise<void> {
    const wanted = new Map(batches.map((b) => [b.partition, (b.records[b.records.length - 1]?.offset ?? -1) + 1]));
    const caughtUp = await this.projected(wanted);
    // Stopping: leave the round uncommitted, for whoever runs next.
    if (this.stopping$.value) throw new Error('intelligence is stopping');
    if (!caughtUp) this.logger.warn({ wanted: Object.fromEntries(wanted) }, 'projection has not caught up; analysing what is there');
    const closed = new Set<string>();
    const touched = new Set<string>();
    for (const batch of batches) {
      for (const { event: e, offset } of parseEvents(batch, () => undefined)) {
        try {
          if (e.type === 'SessionClosed') closed.add(e.data.session.sessionId);
          else if (e.type === 'MessageRecorded' && e.data.sessionId
            && ((e.data.sender === 'fan' && churnPhrase(e.data.text)) || (e.data.sender === 'human' && e.data.priceCents > 0))) {
            touched.add(e.data.sessionId);
          }
        } catch (err) {
          // A malformed event: the projector sets it aside and records it; here it only must not stall the partition.
          this.logger.warn({ err, partition: batch.partition, offset }, 'intelligence skipped a malformed event');
        }
      }
    }
    for (const id of closed) await this.intelligence.analyse(id, true);
    for (const id of touched) if (!closed.has(id)) await this.intelligence.analyse(id, false);
  }

  /** Waits (a bounded while) until the projector has written these offsets; false if it has not. */
  private async projected(wanted: ReadonlyMap<number, number>): Promise<boolean> {
    if (this.progress?.reached(wanted)) return true;
    const committedReach = async (): Promise<boolean> => {
      const committed = await this.log.committedOffsets(this.topology.projectorGroup, this.topology.sessionEvents).catch(() => ({} as Record<number, number>));
      for (const [p, offset] of wanted) if ((committed[p] ?? 0) < offset) return false;
      return true;
    };
    // Written before this process started (its projector has not needed a round since).
    if (await committedReach()) return true;
    // Woken by the projector's rounds in this process, or checking its commits when it runs elsewhere.
    const reaching = this.progress?.reaching(wanted) ?? timer(REMOTE_POLL_MS, REMOTE_POLL_MS).pipe(exhaustMap(committedReach));
    return firstValueFrom(reaching.pipe(
      filter(Boolean),
      timeout({ first: PROJECTION_WAIT_MS, with: () => of(false) }),
      takeUntil(this.stopping$.pipe(filter(Boolean))),
    ), { defaultValue: false });
  }

  /** Stops the sweep and any wait; the consumer itself is stopped by whoever runs the stage. */
  async stop(): Promise<void> {
    this.stopping$.next(true);
    if (this.timer) clearInterval(this.timer);
    await this.sweeping;
  }
}
