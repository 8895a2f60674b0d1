// Clock commands through the processor and the projector as the log holds them: a command
// delivered twice counts once, a second clock-in changes nothing, and running the same log again
// (replay) gives the same intervals.
import { describe, expect, it } from 'vitest';
import type { AppendRecord } from '../../src/adapters/log/log.js';
import { inboundRecord } from '../../src/domain/inbound-record.js';
import { CLOCK_CHATTER, clockChatOf } from '../../src/domain/normalise.js';
import { runRecords } from '../support/run-chats.js';

const T0 = Date.parse('2026-06-10T08:00:00Z');
const MIN = 60_000;

function clock(chatterId: string, action: 'in' | 'out', at: number, key = `${chatterId}:${action}:${at}`, idleSince?: number): AppendRecord {
  const body = { chatterId, action, requestedBy: 'lead', requestedAt: new Date(T0 + at).toISOString(), ...(idleSince !== undefined ? { idleSince: new Date(T0 + idleSince).toISOString() } : {}) };
  return inboundRecord({ source: 'command', event: CLOCK_CHATTER, accountId: 'acct_c', chatId: clockChatOf(chatterId), dedupeKey: key, receivedAt: T0 + at }, Buffer.from(JSON.stringify(body)));
}

const intervals = (records: readonly AppendRecord[]) => [...runRecords(records, 30 * MIN, 5 * MIN).clockIntervals.values()]
  .map((d) => ({ chatterId: d.chatterId, inAt: d.inAt - T0, outAt: d.outAt === null ? null : d.outAt - T0, outAutomatic: d.outAutomatic }))
  .sort((a, b) => a.chatterId.localeCompare(b.chatterId) || a.inAt - b.inAt);

describe('clock records', () => {
  it('make one interval per clock-in, whatever is delivered twice', () => {
    const once = [clock('ann', 'in', 0), clock('bob', 'in', MIN), clock('ann', 'in', 2 * MIN), clock('ann', 'out', 60 * MIN), clock('ann', 'in', 90 * MIN, 'k', 70 * MIN)];
    const want = [
      { chatterId: 'ann', inAt: 0, outAt: 60 * MIN, outAutomatic: false },
      { chatterId: 'ann', inAt: 90 * MIN, outAt: null, outAutomatic: false },
      { chatterId: 'bob', inAt: MIN, outAt: null, outAutomatic: false },
    ];
    expect(intervals(once)).toEqual(want);
    // Every record delivered again (the platform's or a producer's retry), in place and at the end.
    expect(intervals([...once.flatMap((r) => [r, r]), ...once])).toEqual(want);
  });

  it('closes an interval that ended by idling where the next command says', () => {
    expect(intervals([clock('ann', 'in', 0), clock('ann', 'in', 120 * MIN, 'again', 30 * MIN)])).toEqual([
      { chatterId: 'ann', inAt: 0, outAt: 30 * MIN, outAutomatic: true },
      { chatterId: 'ann', inAt: 120 * MIN, outAt: null, outAutomatic: false },
    ]);
  });

  it('keeps a malformed command in the log without acting on it', () => {
    const bad = inboundRecord({ source: 'command', event: CLOCK_CHATTER, accountId: 'acct_c', chatId: clockChatOf('ann'), dedupeKey: 'bad', receivedAt: T0 }, Buffer.from(JSON.stringify({ chatterId: 'bob', action: 'in', requestedAt: new Date(T0).toISOString() })));
    expect(intervals([bad])).toEqual([]);
  });
});
