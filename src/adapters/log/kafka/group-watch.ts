// How a consumer stands in its group, from what kafkajs tells (its instrumentation events)
// and what the adapter's own calls hear (a heartbeat or a commit refused): joins the group had
// to make again, and why; and the records waiting for it, from the fetches' high watermarks
// and the offsets it committed. Told to the consumer's monitor (pipeline/stage-health.ts),
// which is what /api/health and /metrics read.
import type { Consumer as KConsumer } from 'kafkajs';
import type { ConsumerMonitor, RejoinReason } from '../log.js';

/** Errors that say the group went on without this member: its session expired, or a rebalance completed without it. */
const DROPPED_ERRORS = new Set(['UNKNOWN_MEMBER_ID', 'ILLEGAL_GENERATION', 'FENCED_INSTANCE_ID']);

function errorType(err: unknown): string | undefined {
  const type = (err as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? type : undefined;
}

/** Records behind the consumer, per partition: the high watermark a fetch saw and the next offset it committed. */
export class Positions {
  private readonly parts = new Map<string, { high: number; next: number }>();

  fetched(topic: string, partition: number, from: number, highWatermark: number): void {
    const key = `${topic}:${partition}`;
    const p = this.parts.get(key);
    // Before its first commit here, the fetch's start is the best known position.
    this.parts.set(key, { high: Number.isFinite(highWatermark) ? highWatermark : p?.high ?? from, next: p?.next ?? from });
  }

  committed(topic: string, partition: number, next: number): void {
    const key = `${topic}:${partition}`;
    const p = this.parts.get(key);
    this.parts.set(key, { high: Math.max(p?.high ?? next, next), next });
  }

  /** After a rebalance: partitions no longer this consumer's are another's to report. */
  keep(assignment: Readonly<Record<string, readonly number[]>>): void {
    for (const key of [...this.parts.keys()]) {
      const at = key.lastIndexOf(':');
      if (!assignment[key.slice(0, at)]?.includes(Number(key.slice(at + 1)))) this.parts.delete(key);
    }
  }

  waiting(): number {
    let n = 0;
    for (const p of this.parts.values()) n += Math.max(0, p.high - p.next);
    return n;
  }
}

/**
 * Watches one kafkajs consumer: counts each join after its first as a rejoin, `dropped` when
 * the member id changed (the coordinator had forgotten it) or a call of ours heard that the
 * group went on without it, `rebalance` otherwise; a crash is `crashed`.
 */
export class GroupWatch {
  private memberId: string | null = null;
  private droppedBecause: string | null = null;

  constructor(consumer: KConsumer, private readonly monitor: ConsumerMonitor | undefined, positions: Positions) {
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      const { memberId, memberAssignment } = event.payload;
      positions.keep(memberAssignment);
      const before = this.memberId;
      this.memberId = memberId;
      if (before === null) {
        this.droppedBecause = null;
        return;
      }
      const dropped = this.droppedBecause ?? (before !== memberId ? 'the coordinator no longer knew this member (its session expired)' : null);
      this.droppedBecause = null;
      this.report(dropped === null ? 'rebalance' : 'dropped', dropped ?? 'the group rebalanced');
    });
    consumer.on(consumer.events.CRASH, (event) => {
      // Whether kafkajs restarts it or the adapter does, the next join is a new member's.
      this.memberId = null;
      const err = event.payload.error;
      this.report('crashed', err instanceof Error ? `${err.name}: ${err.message}` : String(err));
    });
  }

  /** An error a heartbeat or a commit of ours got: if it says the group dropped this member, the next join is counted so. */
  heard(err: unknown): void {
    const type = errorType(err);
    if (type && DROPPED_ERRORS.has(type)) this.droppedBecause = `the group went on without this member (${type})`;
  }

  private report(reason: RejoinReason, detail: string): void {
    this.monitor?.rejoined(reason, detail);
  }
}
