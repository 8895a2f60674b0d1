// Intelligence off the ingest path: its own consumer group on `session-events` analyses a
// session when it closes (rules and model) or when a fan message or a pay-per-view might
// change what the rules say (rules only), and a sweep keeps stored alerts true to the clock.
import type { Consumer, Log } from '../adapters/log/log.js';
import { parseEvents } from '../projector/projector.js';
import type { Logger } from '../support/logger.js';
import type { Topology } from '../topology.js';
import type { Intelligence } from './intelligence.js';
import { churnPhrase } from './rules.js';

const PROJECTION_WAIT_MS = 30_000;

export class IntelligenceConsumer {
  private consumer?: Consumer;
  private timer?: NodeJS.Timeout;
  private sweeping: Promise<void> | null = null;

  constructor(
    private readonly log: Log,
    private readonly topology: Topology,
    private readonly intelligence: Intelligence,
    private readonly sweepMs: number,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    await this.intelligence.ensureIndexes();
    this.consumer = await this.log.consume({
      groupId: `${this.topology.projectorGroup}-intelligence`,
      topics: [this.topology.sessionEvents],
      // A new deployment analyses what happens from now on, not its whole history (model calls cost money).
      fromBeginning: false,
      onBatch: async (batch) => {
        await this.projected(batch.partition, (batch.records[batch.records.length - 1]?.offset ?? -1) + 1);
        const closed = new Set<string>();
        const touched = new Set<string>();
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
        for (const id of closed) await this.intelligence.analyse(id, true);
        for (const id of touched) if (!closed.has(id)) await this.intelligence.analyse(id, false);
      },
      onError: (err) => this.logger.error({ err }, 'intelligence batch failed; retrying'),
    });
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

  /** Intelligence reads the read models, so it waits (a bounded while) for the projector to pass these events. */
  private async projected(partition: number, offset: number): Promise<void> {
    const deadline = Date.now() + PROJECTION_WAIT_MS;
    while (Date.now() < deadline) {
      const committed = await this.log.committedOffsets(this.topology.projectorGroup, this.topology.sessionEvents).catch(() => ({} as Record<number, number>));
      if ((committed[partition] ?? 0) >= offset) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    this.logger.warn({ partition, offset }, 'projection has not caught up; analysing what is there');
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.sweeping;
    await this.consumer?.stop();
  }
}
