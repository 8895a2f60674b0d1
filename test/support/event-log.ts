// Reading a whole topic back in tests: every record, and each session event id with the
// contents it was appended with (one id, one content).
import type { Log, LogRecord } from '../../src/adapters/log/log.js';
import { eventually, uniqueName } from './wait.js';

/** Every record of a topic, read by a consumer group of its own from the beginning. */
export async function allRecords(log: Log, topic: string): Promise<LogRecord[]> {
  const ends = await log.endOffsets(topic);
  const want = Object.values(ends).reduce((a, b) => a + b, 0);
  const seen: LogRecord[] = [];
  const consumer = await log.consumeRounds({
    groupId: uniqueName('topic-reader'), topics: [topic], fromBeginning: true,
    onRound: async (batches) => { for (const b of batches) seen.push(...b.records); },
  });
  try {
    await eventually(() => (seen.length >= want ? true : undefined), 30_000, `all ${want} records of ${topic}`);
  } finally {
    await consumer.stop();
  }
  return seen;
}

/** Event id → the distinct contents it was appended with. */
export function contentsById(records: readonly LogRecord[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const r of records) {
    const id = (JSON.parse(r.value.toString('utf8')) as { id: string }).id;
    out.set(id, (out.get(id) ?? new Set()).add(r.value.toString('utf8')));
  }
  return out;
}

/** Event ids appended with more than one content. */
export const reusedIds = (records: readonly LogRecord[]): string[] => [...contentsById(records)].filter(([, c]) => c.size > 1).map(([id]) => id);
