// Outbound calls against local servers that misbehave: a redirect to another origin is refused
// before anything reaches it, same-origin redirects are followed, a redirect loop ends, an
// oversized body (announced or chunked) is refused without being read in full, and the timeout
// covers a body that trickles in. Then the same through the platform client and its readiness probe.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_REDIRECTS, DEFAULT_MAX_RESPONSE_BYTES, guardedFetch, OutboundOriginRefused, OutboundResponseTooLarge, OutboundTimeout, OutboundTooManyRedirects,
} from '../../src/adapters/http/guarded-fetch.js';
import { PlatformClient, PlatformError } from '../../src/adapters/platform/platform-client.js';
import { platformReadiness } from '../../src/adapters/platform/readiness.js';
import { streamBody, type Streamed } from '../support/stream-body.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface Local {
  readonly url: string;
  readonly origin: string;
  /** Each request as "METHOD /path?query", in order. */
  readonly seen: string[];
  /** Each request's body, in order. */
  readonly bodies: string[];
  handler: Handler;
  close(): Promise<void>;
}

async function local(): Promise<Local> {
  const sockets = new Set<import('node:net').Socket>();
  const state: Local = {
    url: '', origin: '', seen: [], bodies: [],
    handler: (_req, res) => { res.writeHead(404).end(); },
    close: () => new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      state.seen.push(`${req.method} ${req.url}`);
      state.bodies.push(body);
      state.handler(req, res, body);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return Object.assign(state, { url: `http://127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` });
}

const redirect = (res: ServerResponse, status: number, location: string) => { res.writeHead(status, { location }).end(); };
const json = (res: ServerResponse, body: unknown) => { res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)); };

const caught = async (p: Promise<unknown>): Promise<unknown> => p.then(() => new Error('expected a rejection'), (err: unknown) => err);

// The allowed origin and another one; each section says what the other answers, so a leak shows.
let home: Local;
let other: Local;
beforeAll(async () => { [home, other] = await Promise.all([local(), local()]); });
afterAll(async () => { await Promise.all([home.close(), other.close()]); });
beforeEach(() => {
  home.seen.length = 0;
  other.seen.length = 0;
});

describe('guarded fetch', () => {
  beforeEach(() => { other.handler = (_req, res) => json(res, { stolen: true }); });

  it('refuses a redirect to another origin, naming only that origin, and never calls it', async () => {
    for (const status of [301, 302, 303, 307, 308]) {
      home.handler = (_req, res) => redirect(res, status, `${other.url}/collect?token=sk-secret-123`);
      const err = await caught(guardedFetch(`${home.url}/api/x`, { timeoutMs: 5000, headers: { authorization: 'Bearer sk-key' } }));
      expect(err).toBeInstanceOf(OutboundOriginRefused);
      const refused = err as OutboundOriginRefused;
      expect(refused.targetOrigin).toBe(other.origin);
      expect(refused.viaRedirect).toBe(true);
      expect(refused.message).toContain(other.origin);
      expect(refused.message).not.toMatch(/collect|sk-secret/);
    }
    // Another scheme or host on the same port is another origin too.
    home.handler = (_req, res) => redirect(res, 302, home.url.replace('127.0.0.1', 'localhost') + '/api/x');
    await expect(guardedFetch(`${home.url}/api/x`, { timeoutMs: 5000 })).rejects.toBeInstanceOf(OutboundOriginRefused);
    home.handler = (_req, res) => redirect(res, 302, 'file:///etc/passwd');
    await expect(guardedFetch(`${home.url}/api/x`, { timeoutMs: 5000 })).rejects.toBeInstanceOf(OutboundOriginRefused);
    expect(other.seen).toEqual([]);
    // A first URL outside the allowed origin is refused before any request.
    await expect(guardedFetch(`${other.url}/api/x`, { timeoutMs: 5000, allowedOrigin: home.origin })).rejects.toMatchObject({ targetOrigin: other.origin, viaRedirect: false });
    expect(other.seen).toEqual([]);
  });

  it('follows same-origin redirects, keeping a 307 POST and turning a 303 into a GET', async () => {
    home.handler = (req, res, body) => {
      if (req.url === '/old') return redirect(res, 301, '/mid?x=1');
      if (req.url === '/mid?x=1') return redirect(res, 302, `${home.url}/new`);
      if (req.url === '/post') return redirect(res, 307, '/post-here');
      if (req.url === '/form') return redirect(res, 303, '/result');
      return json(res, { at: req.url, method: req.method, body });
    };
    const got = await guardedFetch(`${home.url}/old`, { timeoutMs: 5000 });
    expect(got.status).toBe(200);
    expect(got.url.pathname).toBe('/new');
    expect(JSON.parse(got.text())).toEqual({ at: '/new', method: 'GET', body: '' });
    expect(home.seen).toEqual(['GET /old', 'GET /mid?x=1', 'GET /new']);
    const posted = await guardedFetch(`${home.url}/post`, { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' }, timeoutMs: 5000 });
    expect(JSON.parse(posted.text())).toEqual({ at: '/post-here', method: 'POST', body: '{"a":1}' });
    const form = await guardedFetch(`${home.url}/form`, { method: 'POST', body: 'a=1', timeoutMs: 5000 });
    expect(JSON.parse(form.text())).toEqual({ at: '/result', method: 'GET', body: '' });
    // A redirect without a Location is an answer like any other.
    home.handler = (_req, res) => { res.writeHead(302).end('moved'); };
    const bare = await guardedFetch(`${home.url}/x`, { timeoutMs: 5000 });
    expect(bare).toMatchObject({ status: 302, ok: false });
  });

  it('stops a redirect loop after a few hops', async () => {
    home.handler = (req, res) => redirect(res, 302, req.url === '/a' ? '/b' : '/a');
    const err = await caught(guardedFetch(`${home.url}/a`, { timeoutMs: 5000 }));
    expect(err).toBeInstanceOf(OutboundTooManyRedirects);
    expect(home.seen).toHaveLength(DEFAULT_MAX_REDIRECTS + 1);
    home.seen.length = 0;
    await expect(guardedFetch(`${home.url}/a`, { timeoutMs: 5000, maxRedirects: 1 })).rejects.toBeInstanceOf(OutboundTooManyRedirects);
    expect(home.seen).toEqual(['GET /a', 'GET /b']);
    home.seen.length = 0;
    home.handler = (req, res) => (req.url === '/a' ? redirect(res, 302, '/b') : json(res, 'fine'));
    await expect(guardedFetch(`${home.url}/a`, { timeoutMs: 5000, maxRedirects: 1 })).resolves.toMatchObject({ status: 200 });
  });

  it('refuses an announced oversized body at once, and reads one at the cap', async () => {
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(16 * 1024 * 1024);
    const cap = 64 * 1024;
    const sent: Streamed[] = [];
    home.handler = (_req, res) => {
      res.writeHead(200, { 'content-length': String(64 * 1024 * 1024) });
      sent.push(streamBody(res, Buffer.alloc(16 * 1024, 'a'), 64 * 1024 * 1024, 5));
    };
    const err = await caught(guardedFetch(`${home.url}/big`, { timeoutMs: 10_000, maxResponseBytes: cap }));
    expect(err).toBeInstanceOf(OutboundResponseTooLarge);
    expect(err).toMatchObject({ declared: 64 * 1024 * 1024, maxBytes: cap });
    await sent[0]!.closed;
    expect(sent[0]!.written()).toBeLessThan(64 * 1024 * 1024);
    home.handler = (_req, res) => { res.writeHead(200, { 'content-length': String(cap) }).end(Buffer.alloc(cap, 'b')); };
    expect((await guardedFetch(`${home.url}/exact`, { timeoutMs: 5000, maxResponseBytes: cap })).body.byteLength).toBe(cap);
  });

  it('stops reading a chunked body as soon as it passes the cap', async () => {
    const cap = 256 * 1024;
    const sent: Streamed[] = [];
    // Endless without the guard: only the cap can end this before the timeout.
    home.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      sent.push(streamBody(res, Buffer.alloc(32 * 1024, 'c'), Number.MAX_SAFE_INTEGER));
    };
    const err = await caught(guardedFetch(`${home.url}/endless`, { timeoutMs: 20_000, maxResponseBytes: cap }));
    expect(err).toBeInstanceOf(OutboundResponseTooLarge);
    expect(err).toMatchObject({ declared: null, maxBytes: cap });
    await sent[0]!.closed;
    // Just under the cap, in many chunks, is read whole.
    home.handler = (_req, res) => { res.writeHead(200); streamBody(res, Buffer.alloc(1024, 'e'), cap - 1024); };
    expect((await guardedFetch(`${home.url}/under`, { timeoutMs: 5000, maxResponseBytes: cap })).body.byteLength).toBe(cap - 1024);
  });

  it('times out a body that trickles in, and an exchange slowed across redirects', async () => {
    const sent: Streamed[] = [];
    home.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      sent.push(streamBody(res, Buffer.from(' '), 1_000_000, 20));
    };
    const started = Date.now();
    const err = await caught(guardedFetch(`${home.url}/trickle`, { timeoutMs: 400 }));
    expect(err).toBeInstanceOf(OutboundTimeout);
    expect(Date.now() - started).toBeLessThan(10_000);
    await sent[0]!.closed;
    expect(sent[0]!.written()).toBeGreaterThan(0);
    // Each hop alone is quick; together they take longer than the timeout.
    home.handler = (req, res) => { setTimeout(() => redirect(res, 302, req.url === '/a' ? '/b' : '/a'), 150); };
    await expect(guardedFetch(`${home.url}/a`, { timeoutMs: 400, maxRedirects: 20 })).rejects.toBeInstanceOf(OutboundTimeout);
  });
});

describe('platform client and readiness behind the guard', () => {
  beforeEach(() => { other.handler = (_req, res) => json(res, [{ id: 'theirs' }]); });
  const client = (extra: Partial<ConstructorParameters<typeof PlatformClient>[0]> = {}) =>
    new PlatformClient({ baseUrl: home.url, apiKey: 'platform-key', maxRetries: 3, timeoutMs: 3000, sleep: async () => {}, ...extra });

  it('refuses a redirect to another origin without retrying or calling it', async () => {
    home.handler = (_req, res) => redirect(res, 302, `${other.url}/api/accounts?apiKey=leak`);
    const err = await caught(client().accounts());
    expect(err).toBeInstanceOf(PlatformError);
    expect(err).toMatchObject({ kind: 'refused', message: expect.stringContaining(other.origin) });
    expect((err as Error).message).not.toContain('leak');
    expect(home.seen).toEqual(['GET /api/accounts']);
    expect(other.seen).toEqual([]);
  });

  it('follows a same-origin redirect', async () => {
    home.handler = (req, res) => (req.url === '/api/accounts' ? redirect(res, 308, '/v2/api/accounts') : json(res, [{ id: 'acct_1' }]));
    expect((await client().accounts()).map((a) => a.id)).toEqual(['acct_1']);
    expect(home.seen).toEqual(['GET /api/accounts', 'GET /v2/api/accounts']);
  });

  it('refuses an oversized answer as a bad response, without retrying; a redirect loop too', async () => {
    home.handler = (_req, res) => json(res, Array.from({ length: 200 }, (_, i) => ({ id: `acct_${i}` })));
    await expect(client({ maxResponseBytes: 1024 }).accounts()).rejects.toMatchObject({ kind: 'bad-response', message: expect.stringContaining('1024 bytes') });
    expect(home.seen).toHaveLength(1);
    expect(await client().accounts()).toHaveLength(200);
    home.seen.length = 0;
    home.handler = (req, res) => redirect(res, 302, req.url === '/api/accounts' ? '/api/accounts/' : '/api/accounts');
    await expect(client().accounts()).rejects.toMatchObject({ kind: 'bad-response' });
    expect(home.seen).toHaveLength(DEFAULT_MAX_REDIRECTS + 1);
  });

  it('retries a body that trickles past the timeout, then says the platform did not answer', async () => {
    home.handler = (_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); streamBody(res, Buffer.from(' '), 1_000_000, 20); };
    await expect(client({ timeoutMs: 300, maxRetries: 1 }).accounts()).rejects.toMatchObject({ kind: 'unavailable', message: expect.stringContaining('300 ms') });
    expect(home.seen).toHaveLength(2);
  });

  it('readiness is false when whoami redirects elsewhere, true through a same-origin redirect', async () => {
    home.handler = (_req, res) => redirect(res, 302, `${other.url}/api/whoami`);
    other.handler = (_req, res) => json(res, { ok: true });
    expect(await platformReadiness(home.url, 'platform-key').ready()).toBe(false);
    expect(other.seen).toEqual([]);
    home.handler = (req, res) => (req.url === '/api/whoami' ? redirect(res, 307, '/api/v2/whoami') : json(res, { ok: true }));
    expect(await platformReadiness(home.url, 'platform-key').ready()).toBe(true);
    expect(home.seen.at(-1)).toBe('GET /api/v2/whoami');
  });
});
