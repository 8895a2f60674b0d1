// The webhook route parses a body once: the input the door normalised it to rides in the record
// (H.input), and the processor steps that instead of parsing the body again. Only safe if the
// carried input is exactly what normalising the raw bytes gives: checked on every real sample
// and on fast-check mutations of them (values swapped for hostile ones: huge and odd numbers,
// long digit runs, times in every format and out of bounds, markup, nulls), and the processor
// is shown to use the carried input only when its form is this code's.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderJson } from '../support/json-text.js';
import type { LogRecord } from '../../src/adapters/log/log.js';
import { H, inboundRecord, readInboundMeta } from '../../src/domain/inbound-record.js';
import { carriedInput, INPUT_FORM, inputHeaders, normalise } from '../../src/domain/normalise.js';
import { routeWebhookBytes } from '../../src/domain/webhook-route.js';
import { readRound } from '../../src/processor/round.js';
import { topology } from '../../src/topology.js';
import { startHarness } from '../support/app-harness.js';

const samplesDir = join(import.meta.dirname, '../../../shared/platform/samples');
const samples = readdirSync(samplesDir).filter((f) => f.endsWith('.json')).map((file) => {
  const { _meta, ...body } = JSON.parse(readFileSync(join(samplesDir, file), 'utf8')) as Record<string, unknown>;
  return { file, body };
});
// The samples were captured in June 2026.
const NOW = Date.UTC(2026, 6, 1);

/** The record the webhook route writes for these bytes, or null when the door refuses them. */
function routedRecord(raw: Buffer, key: string, receivedAt: number): LogRecord | null {
  const routed = routeWebhookBytes(raw, key, receivedAt);
  if (!routed.ok) return null;
  const { input, ...meta } = routed.route;
  const r = inboundRecord({ source: 'webhook', ...meta }, raw, inputHeaders(input, raw.length));
  return { topic: 'inbound', partition: 0, offset: 0, key: r.key, value: r.value, headers: { ...r.headers }, timestamp: r.timestamp };
}

function expectCarriedMatchesRaw(record: LogRecord): void {
  const meta = readInboundMeta(record.headers);
  if (!meta) throw new Error('the routed record has no routing headers');
  expect(record.headers[H.input]).toBeDefined();
  expect(carriedInput(meta, record.headers)).toStrictEqual(normalise(meta, record.value));
}

/**
 * What every form normalises a fixed set of bodies to (the samples and seeded mutations of
 * them), as a digest. When the normaliser (or anything it uses: bounds, times, text cleaning)
 * changes what a body becomes, the digest changes: bump INPUT_FORM in src/domain/normalise.ts
 * and add the new form's digest here, so records carrying the older form's reading are
 * normalised from their bytes again.
 */
const FORM_DIGESTS: Readonly<Record<string, string>> = {
  // '1': days the calendar does not have (2026-02-30) were rolled over into the next month.
  // '2': before PPV facts (isFree, queueId on sends; the unlocked message on ppv-unlocked signals).
  // '3': amounts in other bases (0x10), display spellings ($12.00) and below a cent were read;
  //      times Date.parse understood ("Feb 30 2026", zone-less local times) were taken.
  '4': '767243007d8af44b4180638127ebbcde',
};

const hostileLeaf: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }).map((b) => ({ raw: b.toString() })),
  fc.string({ maxLength: 40 }),
  fc.constantFrom('<p>hi <b>there</b></p>', '$12.50', '1,000.00', '2026-06-30T23:59:59Z', '2026-06-30 10:00:00', '1782864000', '2026-02-30T00:00:00Z', '9999-12-31T00:00:00Z', '', '12345678901234567890', 'x'.repeat(3000)),
);

/** Every path to a leaf of the payload (the part the normaliser reads). */
function leafPaths(v: unknown, at: string[] = []): string[][] {
  if (v === null || typeof v !== 'object') return [at];
  return Object.entries(v).flatMap(([k, x]) => leafPaths(x, [...at, k]));
}

function withLeaf(v: unknown, path: readonly string[], leaf: unknown): unknown {
  if (path.length === 0) return leaf;
  const [head, ...rest] = path as [string, ...string[]];
  const copy: Record<string, unknown> = Array.isArray(v) ? { ...v } : { ...(v as Record<string, unknown>) };
  copy[head] = withLeaf(copy[head], rest, leaf);
  return Array.isArray(v) ? Object.values(copy) : copy;
}

/** A real body with some leaves swapped for hostile values, and when it was received. */
const mutation = fc.record({
  sample: fc.constantFrom(...samples),
  changes: fc.array(fc.tuple(fc.nat(), hostileLeaf), { minLength: 1, maxLength: 4 }),
  receivedAt: fc.integer({ min: NOW - 86_400_000, max: NOW + 86_400_000 }),
});

function mutatedBody(m: { sample: { body: Record<string, unknown> }; changes: [number, unknown][] }): Buffer {
  let payload: unknown = m.sample.body.payload;
  const paths = leafPaths(payload);
  for (const [i, leaf] of m.changes) payload = withLeaf(payload, paths[i % paths.length] ?? [], leaf);
  return Buffer.from(renderJson({ ...m.sample.body, payload }));
}

describe('the input a webhook record carries', () => {
  it('is of a form whose readings are pinned: a change to what bodies normalise to needs a new INPUT_FORM', () => {
    const readings: unknown[] = [];
    // Every sample with each of its leaves in turn set to each pinned value, then seeded random mutations.
    const pinned: unknown[] = [null, 0, -1, 12.345, '-0.001', 1e308, { raw: '9007199254740993' }, '', '<p>a &amp; <b>b</b></p>', '$1,000.50',
      '2026-06-30T23:59:59Z', '2026-06-30 10:00:00', '1782864000', '2026-02-30T00:00:00Z', '2026-04-31 10:00:00', '9999-12-31T00:00:00Z', 'x'.repeat(300)];
    const cases = samples.flatMap<{ raw: Buffer; receivedAt: number }>((s) => [
      { raw: Buffer.from(JSON.stringify(s.body)), receivedAt: NOW },
      ...leafPaths(s.body.payload).flatMap((path) => pinned.map((leaf) => ({ raw: Buffer.from(renderJson({ ...s.body, payload: withLeaf(s.body.payload, path, leaf) })), receivedAt: NOW }))),
    ]).concat(fc.sample(mutation, { seed: 33, numRuns: 400 }).map((m) => ({ raw: mutatedBody(m), receivedAt: m.receivedAt })));
    for (const { raw, receivedAt } of cases) {
      const record = routedRecord(raw, 'evt_pinned', receivedAt);
      if (record === null) continue;
      const meta = readInboundMeta(record.headers);
      readings.push(meta ? normalise(meta, record.value) : null);
      // Every pinned case carries exactly that reading (-0 cents included, which JSON cannot hold).
      expectCarriedMatchesRaw(record);
    }
    expect(readings.length).toBeGreaterThan(200);
    const digest = createHash('sha256').update(JSON.stringify(readings)).digest('hex').slice(0, 32);
    expect({ form: INPUT_FORM, digest }).toEqual({ form: INPUT_FORM, digest: FORM_DIGESTS[INPUT_FORM] });
  });

  it('is written by the webhook route, and equals normalising the bytes the log holds', async () => {
    const h = await startHarness({}, { driven: true });
    try {
      const body = JSON.stringify({ ...samples.find((s) => s.file === 'messages_received.json')?.body });
      const answer = await h.webhook(body, { key: 'evt_through_the_route' });
      expect(answer.status).toBe(200);
      const inbound = topology(h.config.topicPrefix, h.config.inboundTopic ?? undefined).inbound;
      const stored: LogRecord[] = [];
      for (let p = 0; p < await h.log.partitionCount(inbound); p++) stored.push(...(await h.log.readRange(inbound, p, 0, 1_000)).records);
      expect(stored).toHaveLength(1);
      expectCarriedMatchesRaw(stored[0] as LogRecord);
    } finally {
      await h.stop();
    }
  });

  it.each(samples.map((s) => [s.file, s.body] as const))('%s: carried input equals normalising the raw bytes', (_file, body) => {
    const record = routedRecord(Buffer.from(JSON.stringify(body)), 'evt_sample', NOW);
    expect(record).not.toBeNull();
    expectCarriedMatchesRaw(record as LogRecord);
  });

  it('equals normalising the raw bytes for mutated real bodies the door admits', () => {
    let admitted = 0;
    fc.assert(fc.property(mutation, (m) => {
      const record = routedRecord(mutatedBody(m), 'evt_fuzz', m.receivedAt);
      if (record === null) return;
      admitted++;
      expectCarriedMatchesRaw(record);
    }), { numRuns: 1500 });
    // The mutations must leave most bodies admissible, or the property checks little.
    expect(admitted).toBeGreaterThan(500);
  });

  it('is what the processor steps when its form is this code\'s, and the raw bytes are normalised otherwise', () => {
    const record = routedRecord(Buffer.from(JSON.stringify(samples.find((s) => s.file === 'messages_received.json')?.body)), 'evt_use', NOW) as LogRecord;
    const carried = JSON.parse(record.headers[H.input] as string) as { text: string };
    // A carried input that says something else than the body: which one the round reads shows which it used.
    const marked = { ...record, headers: { ...record.headers, [H.input]: JSON.stringify({ ...carried, text: 'from the carried input' }) } };
    const inputOf = (r: LogRecord): unknown => {
      const n = readRound([{ topic: 'inbound', partition: 0, records: [r] }]).records[0];
      return n && 'input' in n ? n.input : undefined;
    };
    expect(inputOf(marked)).toMatchObject({ type: 'chat.message', text: 'from the carried input' });
    const otherForm = { ...marked, headers: { ...marked.headers, [H.inputForm]: `${INPUT_FORM}-older` } };
    expect(inputOf(otherForm)).toStrictEqual(normalise(readInboundMeta(record.headers)!, record.value));
    const unreadable = { ...marked, headers: { ...marked.headers, [H.input]: '{"type":' } };
    expect(inputOf(unreadable)).toStrictEqual(normalise(readInboundMeta(record.headers)!, record.value));
    // Only the webhook route carries one, for a record that names no chatter.
    const demo = { ...marked, headers: { ...marked.headers, [H.source]: 'demo' } };
    expect(inputOf(demo)).toMatchObject({ text: expect.not.stringContaining('from the carried input') });
  });

  it('is left out past its size limits, and the processor reads the body instead', () => {
    const big = samples.find((s) => s.file === 'messages_received.json')?.body as { payload: Record<string, unknown> };
    const longText = { ...big, payload: { ...big.payload, text: `<p>${'"'.repeat(12_000)}</p>` } };
    const record = routedRecord(Buffer.from(JSON.stringify(longText)), 'evt_long', NOW) as LogRecord;
    expect(record.headers[H.input]).toBeUndefined();
    const n = readRound([{ topic: 'inbound', partition: 0, records: [record] }]).records[0];
    expect(n && 'input' in n ? n.input : undefined).toStrictEqual(normalise(readInboundMeta(record.headers)!, record.value));
  });
});
