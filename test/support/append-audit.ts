// Every append a service acknowledged, checked against the log afterwards: each record must
// still be at the partition and offset the log gave it, with its own dedupe key. The loss under
// SIGKILLs (docs/benchmarks.md, "Issue 29") left deliveries answered 200 missing from the
// inbound log; this tells a record overwritten by a later one from one never written. The
// service's own log object is observed (its append wrapped on the instance), so the records
// are the ones the real path wrote.
import type { AppendRecord, AppendResult, Log } from '../../src/adapters/log/log.js';
import { H } from '../../src/domain/inbound-record.js';

interface Acknowledged {
  readonly partition: number;
  readonly offset: number;
  readonly dedupe: string;
}

export interface AppendAudit {
  /** How many records the log acknowledged on the topic. */
  readonly count: () => number;
  /** Acknowledged records no longer where the log said, or not as written (empty when all are). */
  problems(): Promise<string[]>;
}

export function auditAppends(log: Log, topic: string): AppendAudit {
  const acknowledged: Acknowledged[] = [];
  const inner = log.append.bind(log);
  (log as { append: Log['append'] }).append = async (t: string, records: readonly AppendRecord[]): Promise<AppendResult[]> => {
    const results = await inner(t, records);
    if (t === topic) results.forEach((r, i) => acknowledged.push({ partition: r.partition, offset: r.offset, dedupe: records[i]?.headers?.[H.dedupe] ?? '' }));
    return results;
  };
  return {
    count: () => acknowledged.length,
    async problems() {
      const ends = await log.endOffsets(topic);
      const stored = new Map<string, string>();
      for (const [p, end] of Object.entries(ends)) {
        for (const r of (await log.readRange(topic, Number(p), 0, end)).records) stored.set(`${p}:${r.offset}`, r.headers[H.dedupe] ?? '');
      }
      const out: string[] = [];
      for (const a of acknowledged) {
        const now = stored.get(`${a.partition}:${a.offset}`);
        if (now === a.dedupe) continue;
        out.push(now === undefined
          ? `${topic}:${a.partition}:${a.offset} (${a.dedupe}) was acknowledged and is not in the log (partition ends at ${ends[a.partition] ?? '?'})`
          : `${topic}:${a.partition}:${a.offset} (${a.dedupe}) was acknowledged and now holds ${now}: overwritten`);
      }
      return out.slice(0, 20);
    },
  };
}
