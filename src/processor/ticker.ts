// Appends a clock record to every partition of `inbound` at a fixed interval, so idle
// sessions close without new messages, and a replay of the log closes them at the same points.
import type { Log } from '../adapters/log/log.js';
import { inboundRecord } from '../domain/inbound-record.js';
import type { Logger } from '../support/logger.js';

export const TICK_KEY = '_tick';

export function tickRecords(partitions: number, now: number) {
  return Array.from({ length: partitions }, (_, partition) => ({
    ...inboundRecord({ source: 'tick', event: 'tick', accountId: '_', chatId: TICK_KEY, dedupeKey: `tick:${now}:${partition}`, receivedAt: now }, Buffer.from('{}')),
    partition,
  }));
}

export class Ticker {
  private timer?: NodeJS.Timeout;

  constructor(private readonly log: Log, private readonly topic: string, private readonly intervalMs: number, private readonly logger: Logger) {}

  async tickNow(now = Date.now()): Promise<void> {
    const partitions = await this.log.partitionCount(this.topic);
    await this.log.append(this.topic, tickRecords(partitions, now));
  }

  start(): void {
    if (this.intervalMs <= 0) return;
    this.timer = setInterval(() => {
      this.tickNow().catch((err: unknown) => this.logger.warn({ err }, 'tick append failed; the next tick will try again'));
    }, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
