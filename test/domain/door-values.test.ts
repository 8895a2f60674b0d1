// One rule per kind of value at the door (issue 54): times, amounts and keys, each spelling the
// hostile probe found, checked through the door itself (routeWebhookBytes over a real sample) and
// through the normaliser that reads what the log already holds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { firstDuplicateKey, parseCheckedJson } from '../../src/domain/json.js';
import { normalise } from '../../src/domain/normalise.js';
import { parsePlatformTime } from '../../src/domain/time.js';
import { routeWebhookBytes } from '../../src/domain/webhook-route.js';
import { verifyDemoRecord } from '../../src/demo/demo-records.js';
import { signBody } from '../../src/ingest/signature.js';

const samplesDir = join(import.meta.dirname, '../../../shared/platform/samples');
const sampleBody = (file: string): Buffer => {
  const { _meta, ...body } = JSON.parse(readFileSync(join(samplesDir, file), 'utf8')) as Record<string, unknown>;
  return Buffer.from(JSON.stringify(body));
};

const NOW = Date.UTC(2026, 10, 29, 12);
const KEY = 'evt_door_values_000000000000001';

/** The real transactions.new sample with its payload changed by `edit`, as the bytes a sender would send. */
function transaction(edit: (payload: Record<string, unknown>) => void): Buffer {
  const body = JSON.parse(sampleBody('transactions_new.json').toString()) as { payload: Record<string, unknown> };
  body.payload.created_at = '2026-11-29 10:00:00';
  // The gross alone unless a case sets the net (the sample's is below its $17).
  delete body.payload.net_amount;
  edit(body.payload);
  return Buffer.from(JSON.stringify(body));
}

const door = (raw: Buffer) => routeWebhookBytes(raw, KEY, NOW);
const refusal = (raw: Buffer): string | null => {
  const r = door(raw);
  return r.ok ? null : `${r.field}: ${r.reason}`;
};
const paidCents = (raw: Buffer): number | undefined => {
  const r = door(raw);
  return r.ok && r.route.input.type === 'chat.payment' ? r.route.input.grossCents : undefined;
};

describe('times at the door', () => {
  it('takes ISO 8601 with a zone, the platform\'s UTC spelling and epoch numbers, to the same instant on every machine', () => {
    const at = Date.UTC(2026, 5, 10, 20, 59, 47);
    for (const spelling of ['2026-06-10T20:59:47Z', '2026-06-10t20:59:47z', '2026-06-10T22:59:47+02:00', '2026-06-10T22:59:47+0200', '2026-06-10T15:59:47-05', '2026-06-10 20:59:47', '2026-06-10T20:59:47.000000Z', ' 2026-06-10T20:59:47Z ', '1781125187', '1781125187000', 1781125187, 1781125187000]) {
      expect(parsePlatformTime(spelling), String(spelling)).toBe(at);
    }
    expect(parsePlatformTime('2026-06-10T20:59:47.5Z')).toBe(at + 500);
    expect(parsePlatformTime('2026-06-10T20:59Z')).toBe(at - 47_000);
  });

  it('refuses what Date.parse would roll over or read in the server\'s own zone', () => {
    for (const spelling of [
      'Feb 30 2026', '2026/02/30', 'Nov 28 2026 10:00', 'Sat, 28 Nov 2026 10:00:00 GMT', '2026-11-28T10:00:00', '2026-11-28 10:00', '2026-11-28',
      '2026-02-30T00:00:00Z', '2026-13-01T00:00:00Z', '2026-11-28T24:00:00Z', '2026-11-28T10:60:00Z', '2026-11-28T10:00:60Z', '2026-11-28T10:00:00+24:00',
      '2026-11-28T10:00:00+02:60', '0x6A0A3D43', '1e9', '-1781125187', '', 'yesterday', -5, Number.NaN, Number.POSITIVE_INFINITY, true, null, {},
    ]) {
      expect(parsePlatformTime(spelling), String(spelling)).toBeUndefined();
    }
  });

  it('names the field and the rule when a webhook\'s time is refused', () => {
    expect(refusal(transaction((p) => { p.created_at = 'Feb 30 2026'; }))).toMatch(/^payload\.created_at: must be a time: ISO 8601 with a zone/);
    expect(refusal(transaction((p) => { p.created_at = '2026/02/30'; }))).toMatch(/^payload\.created_at: must be a time/);
    // An epoch in a string is what the message says it takes.
    expect(refusal(transaction((p) => { p.created_at = String(Math.floor(NOW / 1000) - 60); }))).toBeNull();
  });
});

describe('amounts at the door', () => {
  it('takes JSON numbers and plain decimal strings, to the nearest cent of what was written', () => {
    expect(paidCents(transaction((p) => { p.amount = 17; }))).toBe(1700);
    expect(paidCents(transaction((p) => { p.amount = '12.50'; }))).toBe(1250);
    expect(paidCents(transaction((p) => { p.amount = ' 12.5 '; }))).toBe(1250);
    expect(paidCents(transaction((p) => { p.amount = 1.005; }))).toBe(101);
    expect(paidCents(transaction((p) => { p.amount = 0.01; }))).toBe(1);
  });

  it('refuses other bases, exponents, symbols and what is below a cent, naming the field', () => {
    for (const amount of ['0x10', '0b11', '0o17', '1e3', '$12.00', '12,50', '1_000', 'Infinity', '12.', '.5', '+5', '0.001', 0.001, 0.004]) {
      expect(refusal(transaction((p) => { p.amount = amount; })), String(amount)).toMatch(/^payload\.amount: must be /);
    }
    expect(refusal(transaction((p) => { p.amount = 0.001; }))).toMatch(/at least one cent/);
  });

  it('refuses a net above its gross', () => {
    expect(refusal(transaction((p) => { p.amount = 10; p.net_amount = 20; }))).toMatch(/^payload\.net_amount: must not exceed payload\.amount/);
    expect(refusal(transaction((p) => { p.amount = 10; delete p.net_amount; p.net = 10.01; }))).toMatch(/^payload\.net: must not exceed/);
    expect(refusal(transaction((p) => { p.amount = 10; p.net_amount = 8; }))).toBeNull();
  });
});

describe('duplicate keys', () => {
  it('are refused at the door, naming the key, however the second is spelled', () => {
    const sample = transaction(() => {}).toString();
    for (const [dup, at] of [
      [sample.replace('"amount":', '"amount":1,"amount":'), 'payload.amount'],
      [sample.replace('"amount":', '"amount" : 1 ,\n "amount":'), 'payload.amount'],
      [sample.replace('"amount":', '"\\u0061mount":99999,"amount":'), 'payload.amount'],
      [sample.replace('"event":', '"event":"x","event":'), 'event'],
    ] as const) {
      expect(refusal(Buffer.from(dup)), dup.slice(0, 60)).toBe(`${at}: is given more than once (a duplicate JSON key; JSON parsers disagree on which one counts)`);
    }
  });

  it('are told apart from equal keys in other objects and from quotes inside strings', () => {
    expect(parseCheckedJson('{"a":{"id":1},"b":{"id":2},"c":[{"id":1},{"id":2}]}').unsafe).toBeUndefined();
    expect(parseCheckedJson('{"t":"say \\"a\\": 1, \\"a\\": 2","a":1}').unsafe).toBeUndefined();
    expect(parseCheckedJson('{"t":"\\\\","a":1}').unsafe).toBeUndefined();
    expect(firstDuplicateKey('{"items":[{"id":1},{"id":2,"x":[1,2],"id":3}]}')).toBe('items[1].id');
    expect(firstDuplicateKey('[{"a":1},{"b":1,"b":2}]')).toBe('[1].b');
  });

  it('in a record the log already holds are skipped, not read as the last one', () => {
    const raw = Buffer.from(transaction(() => {}).toString().replace('"amount":', '"amount":1,"amount":'));
    expect(normalise({ source: 'webhook', event: 'transactions.new', accountId: 'acct_1', chatId: '1', dedupeKey: KEY, receivedAt: NOW }, raw))
      .toMatchObject({ type: 'chat.skipped', reason: expect.stringMatching(/^payload\.amount: is given more than once/) });
  });
});

describe('demo records read from a file', () => {
  it('hold their chatter to the connector\'s id rule, as the route\'s schema does', () => {
    const body = transaction(() => {}).toString();
    const record = { body, signature: signBody('demo-secret', body), idempotencyKey: KEY };
    expect(verifyDemoRecord('demo-secret', { ...record, chatterId: '=1+2' }, 'records[0]')).toMatchObject({ ok: false, status: 400, field: 'records[0].chatterId', reason: expect.stringMatching(/^must be an id of/) });
    expect(verifyDemoRecord('demo-secret', { ...record, chatterId: 'ann' }, 'records[0]')).toMatchObject({ ok: true });
  });
});

describe('what a refusal echoes', () => {
  it('names a duplicate key quoted when it is not a plain name, and cut to 64 characters', () => {
    expect(firstDuplicateKey('{"a b":1,"a b":2}')).toBe('"a b"');
    expect(firstDuplicateKey(`{"${'x'.repeat(100)}":1,"${'x'.repeat(100)}":2}`)).toBe(`${'x'.repeat(64)}…`);
    expect(firstDuplicateKey('{"p":{"\\u0000":1,"\\u0000":2}}')).toBe('p."\\u0000"');
  });

  it('refuses times of years before 1000, which Date.UTC would read as 19xx', () => {
    expect(parsePlatformTime('0050-01-01T00:00:00Z')).toBeUndefined();
    expect(parsePlatformTime('2026-06-10T20:59:47.123456789012Z')).toBe(Date.UTC(2026, 5, 10, 20, 59, 47, 123));
  });
});
