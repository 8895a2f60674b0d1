// Which failures may be a record's own (and so, repeated on one round, lead to setting a record
// aside) and which are outages, retried for as long as they last and never set aside.
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError, WriteConflictError } from '../../src/adapters/store/store.js';
import { isRecordsFault, RepeatFailures } from '../../src/pipeline/repeat-failures.js';
import { StoredFormatError } from '../../src/support/stored-format.js';

const named = (name: string, message = 'x', extra: Record<string, unknown> = {}): Error => Object.assign(new Error(message), { name }, extra);

describe('isRecordsFault', () => {
  it('counts outages, fences, full disks and stored data in a format this version does not read as nobody\'s record', () => {
    for (const err of [
      new StoreUnavailableError('down'), new WriteConflictError('c', 'moved'), named('KafkaJSConnectionError'), named('MongoNetworkTimeoutError'),
      named('MongoServerSelectionError'), named('Error', 'connect failed', { code: 'ECONNREFUSED' }), named('Error', 'MDB_MAP_FULL: Environment mapsize limit reached'),
      named('Error', 'write failed', { code: 'ENOSPC' }), named('MongoServerError', 'not primary', { code: 10107 }),
      named('MongoServerError', 'retry', { hasErrorLabel: (l: string) => l === 'RetryableWriteError' }),
      new Error('wrapped', { cause: named('MongoNetworkError') }), new StoredFormatError('chat state written before 0.1.0'),
      named('MongoPoolClearedError'), named('MongoTopologyClosedError'), named('BatchFencedError'), named('ProjectionPaused'),
    ]) expect(isRecordsFault(err), `${err.name}: ${err.message}`).toBe(false);
  });

  it('counts anything else as possibly the record\'s, so a repeat on one round ends in isolation', () => {
    for (const err of [new Error('Key size is larger than the maximum key size (1978)'), new TypeError('x is undefined'), named('DuplicateKeyError'), named('MongoServerError'), named('MongoNetworkGlitch'), named('StoreUnavailable'), 'a string']) {
      expect(isRecordsFault(err)).toBe(true);
    }
  });
});

describe('RepeatFailures', () => {
  const round = (first: number) => [{ topic: 't', partition: 0, records: [{ topic: 't', partition: 0, offset: first, key: 'k', value: Buffer.from(''), headers: {}, timestamp: 0 }] }];
  it('is a repeat only for the same round failing the same way twice running', () => {
    const r = new RepeatFailures();
    expect(r.repeated(round(1), new Error('a'))).toBe(false);
    expect(r.repeated(round(1), new Error('b'))).toBe(false);
    expect(r.repeated(round(1), new Error('b'))).toBe(true);
    expect(r.repeated(round(2), new Error('b'))).toBe(false);
    r.clear();
    expect(r.repeated(round(2), new Error('b'))).toBe(false);
  });
});
