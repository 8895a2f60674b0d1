// The model provider's HTTP call behind the outbound guard: a redirect to another origin or an
// oversized answer is a model error that is not retried (the same call would fail the same
// way), the answer is read up to 1 MiB even when a larger outbound cap is passed, a same-origin
// redirect is followed, and the timeout covers an answer that trickles in.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../../src/adapters/http/guarded-fetch.js';
import { HttpModelProvider, MODEL_MAX_RESPONSE_BYTES, ModelRequestRefused } from '../../src/intelligence/model-provider.js';
import type { FactMessage } from '../../src/intelligence/rules.js';
import { streamBody } from '../support/stream-body.js';

const GOOD = { labels: [{ label: 'vip', confidence: 0.9 }], summary: 'Big spender.', recommendations: ['Say thanks.'] };
const answer = (content: string) => JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] });

interface Fake { server: Server; url: string; origin: string; seen: string[]; handler: (req: IncomingMessage, res: ServerResponse, body: string) => void }

async function fake(): Promise<Fake> {
  const f: Fake = { server: createServer(), url: '', origin: '', seen: [], handler: (_req, res) => { res.writeHead(404).end(); } };
  f.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      f.seen.push(`${req.method} ${req.url}`);
      f.handler(req, res, Buffer.concat(chunks).toString('utf8'));
    });
  });
  await new Promise<void>((r) => f.server.listen(0, '127.0.0.1', () => r()));
  const addr = f.server.address();
  f.origin = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  f.url = `${f.origin}/v1`;
  return f;
}

const transcript: FactMessage[] = [{ messageId: '1', sender: 'fan', chatterId: null, text: 'sent a big tip', priceCents: 0, sentAt: 0 }];

describe('model provider behind the outbound guard', () => {
  let model: Fake;
  let other: Fake;
  beforeAll(async () => { [model, other] = await Promise.all([fake(), fake()]); });
  afterAll(() => { model.server.closeAllConnections(); other.server.closeAllConnections(); model.server.close(); other.server.close(); });
  beforeEach(() => {
    model.seen.length = 0;
    other.seen.length = 0;
    other.handler = (_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }).end(answer(JSON.stringify(GOOD))); };
  });
  const provider = (extra: Partial<ConstructorParameters<typeof HttpModelProvider>[0]> = {}) =>
    new HttpModelProvider({ baseUrl: model.url, apiKey: 'sk-model', model: 'fake-1', timeoutMs: 3000, maxRetries: 3, concurrency: 1, ...extra });

  it('refuses a redirect to another origin once, without retrying it or calling that origin', async () => {
    model.handler = (_req, res) => { res.writeHead(307, { location: `${other.url}/chat/completions?key=sk-model` }).end(); };
    const err = await provider().label(transcript).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(ModelRequestRefused);
    expect((err as Error).message).toContain(other.origin);
    expect((err as Error).message).not.toContain('sk-model');
    expect(model.seen).toEqual(['POST /v1/chat/completions']);
    expect(other.seen).toEqual([]);
  });

  it('follows a same-origin 307, sending the request again', async () => {
    const bodies: string[] = [];
    model.handler = (req, res, body) => {
      bodies.push(body);
      if (req.url === '/v1/chat/completions') return void res.writeHead(307, { location: '/v2/chat/completions' }).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(answer(JSON.stringify(GOOD)));
    };
    await expect(provider().label(transcript)).resolves.toMatchObject({ labels: GOOD.labels, model: 'fake-1' });
    expect(model.seen).toEqual(['POST /v1/chat/completions', 'POST /v2/chat/completions']);
    expect(bodies[1]).toBe(bodies[0]);
    expect(JSON.parse(bodies[1] ?? '{}')).toMatchObject({ model: 'fake-1' });
  });

  it('refuses an answer over 1 MiB, announced or chunked, once, even when a larger cap is passed', async () => {
    expect(MODEL_MAX_RESPONSE_BYTES).toBe(1024 * 1024);
    // Announced: a valid answer padded past the cap.
    const padded = answer(JSON.stringify(GOOD)) + ' '.repeat(MODEL_MAX_RESPONSE_BYTES);
    model.handler = (_req, res) => { res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(padded)) }).end(padded); };
    const announced = await provider({ maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES }).label(transcript).then(() => null, (e: unknown) => e);
    expect(announced).toBeInstanceOf(ModelRequestRefused);
    expect((announced as Error).message).toMatch(/1048576-byte limit/);
    expect(model.seen).toHaveLength(1);
    // Chunked and endless: only the cap can end it before the timeout.
    model.seen.length = 0;
    const poured: Promise<number>[] = [];
    model.handler = (_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); poured.push(streamBody(res, Buffer.alloc(64 * 1024, ' '), Number.MAX_SAFE_INTEGER).closed); };
    const chunked = await provider({ maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES, timeoutMs: 20_000 }).label(transcript).then(() => null, (e: unknown) => e);
    expect(chunked).toBeInstanceOf(ModelRequestRefused);
    expect(model.seen).toHaveLength(1);
    expect(await poured[0]).toBeGreaterThan(0);
    // A smaller configured cap applies too.
    model.seen.length = 0;
    model.handler = (_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }).end(answer(JSON.stringify(GOOD))); };
    await expect(provider({ maxResponseBytes: 1024 }).label(transcript)).resolves.toMatchObject({ labels: GOOD.labels });
    await expect(provider({ maxResponseBytes: 50 }).label(transcript)).rejects.toBeInstanceOf(ModelRequestRefused);
  });

  it('times out an answer that trickles in, retrying within its bound', async () => {
    const poured: Promise<number>[] = [];
    model.handler = (_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); poured.push(streamBody(res, Buffer.from(' '), 1_000_000, 20).closed); };
    const started = Date.now();
    const err = await provider({ timeoutMs: 300, maxRetries: 1 }).label(transcript).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(ModelRequestRefused);
    expect((err as Error).message).toMatch(/within 300 ms/);
    expect(model.seen).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await Promise.all(poured)).toEqual([expect.any(Number), expect.any(Number)]);
  });
});
