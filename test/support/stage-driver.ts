// The pipeline faked at its seam: the real processor, projector and intelligence stages
// (src/pipeline-stages.ts), run by hand over what the log holds instead of under consumers. A
// route test appends (a webhook, a tick) and drives, and the read models are exactly what the
// running pipeline would write, with no consumer loop, no poll and no wait for them to settle.
// Each round is what a consumer hands a stage (at most one batch per partition, in offset
// order, at most a round's worth of records), and the group's offsets are committed after it,
// so health reads no lag.
import type { Log, RecordBatch } from '../../src/adapters/log/log.js';
import { DEFAULT_ROUND_LIMITS } from '../../src/config.js';
import type { Stage } from '../../src/pipeline/stage.js';

export class StageDriver {
  /** Per stage, the next offset to read by `topic:partition`. */
  private readonly positions = new Map<Stage, Map<string, number>>();
  private prepared: Promise<void> | null = null;
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly log: Log, private readonly stages: readonly Stage[]) {}

  /** Runs every stage, in order, until a pass over all of them finds nothing new. One drive at a time. */
  drive(): Promise<void> {
    const run = this.running.then(async () => {
      this.prepared ??= (async () => { for (const s of this.stages) await s.prepare?.(); })();
      await this.prepared;
      for (;;) {
        let moved = false;
        for (const stage of this.stages) if (await this.pump(stage)) moved = true;
        if (!moved) return;
      }
    });
    this.running = run.catch(() => undefined);
    return run;
  }

  /** Rounds of the stage until it has read its topics to their ends; whether it read anything. */
  private async pump(stage: Stage): Promise<boolean> {
    let any = false;
    for (;;) {
      const batches: RecordBatch[] = [];
      const next: { topic: string; partition: number; to: number }[] = [];
      const at = this.positions.get(stage) ?? new Map<string, number>();
      this.positions.set(stage, at);
      for (const topic of stage.topics) {
        for (const [p, end] of Object.entries(await this.log.endOffsets(topic))) {
          const partition = Number(p);
          const from = at.get(`${topic}:${partition}`) ?? 0;
          if (from >= end) continue;
          const to = Math.min(end, from + DEFAULT_ROUND_LIMITS.maxRecords);
          const { records } = await this.log.readRange(topic, partition, from, to);
          next.push({ topic, partition, to });
          if (records.length > 0) batches.push({ topic, partition, records, owned: () => true });
        }
      }
      if (next.length === 0) return any;
      if (batches.length > 0) await stage.handleBatch(batches);
      any = true;
      for (const n of next) at.set(`${n.topic}:${n.partition}`, n.to);
      for (const topic of stage.topics) {
        const offsets = Object.fromEntries(next.filter((n) => n.topic === topic).map((n) => [n.partition, n.to]));
        if (Object.keys(offsets).length > 0) await this.log.setGroupPosition(stage.group, topic, { kind: 'offsets', offsets: { ...await this.log.committedOffsets(stage.group, topic), ...offsets } });
      }
    }
  }
}
