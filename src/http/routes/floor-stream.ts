// GET /api/floor/stream: the floor without a key as server-sent events, for the wallboard page.
// One computation per second serves every screen (however many hang on the floor), and a
// snapshot is pushed only when it differs from the last one. Heartbeats keep proxies from
// closing an idle stream; `retry` tells browsers how soon to reconnect. The view without a key
// only (EventSource cannot send one, and the wall is read by anyone walking past): the public
// view while reads are open, totals only with READ_AUTH=required. A key sent anyway changes
// nothing: every screen shares the one computation.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ReadAuth } from '../../access/access-model.js';
import { floorViewer, type FloorSnapshot, type FloorView, type FloorViewer } from '../../queries/floor.js';
import type { Logger } from '../../support/logger.js';
import { ApiError, errorResponses } from '../errors.js';

export const FLOOR_STREAM_PATH = '/api/floor/stream';

export interface FloorStreamOptions {
  readonly floor: FloorView;
  readonly logger: Logger;
  /** Decides the view without a key: `public` while reads are open, `aggregate` when they need a key. */
  readonly readAuth: ReadAuth;
  readonly now?: () => number;
  /** Shortest time between two computations (and so between two pushes). */
  readonly intervalMs?: number;
  readonly heartbeatMs?: number;
  /** Open streams per process, and per client address: a wall of screens, not a crowd. */
  readonly maxClients?: number;
  readonly maxPerAddress?: number;
  /** A stream ends after this long and the browser reconnects, so no client holds a slot for good. */
  readonly maxStreamMs?: number;
}

interface Client {
  readonly reply: FastifyReply;
  readonly address: string;
  readonly openedAt: number;
}

const RETRY_MS = 3000;
/** A reader that lets this much pile up unread is cut off (it reconnects if it is alive). */
const MAX_BUFFERED_BYTES = 256 * 1024;

/** What changes a screen: everything but the snapshot's own time. */
const contentOf = (s: FloorSnapshot): string => JSON.stringify({ ...s, at: null });

export class FloorBroadcaster {
  private readonly clients = new Set<Client>();
  private timer: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private last: { content: string; event: string } | null = null;
  private computing: Promise<void> | null = null;
  private closed = false;

  private readonly viewer: FloorViewer;

  constructor(private readonly opts: Required<Omit<FloorStreamOptions, 'logger'>> & { readonly logger: Logger }) {
    this.viewer = floorViewer(null, false, opts.readAuth);
  }

  get size(): number {
    return this.clients.size;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  countFrom(address: string): number {
    let n = 0;
    for (const c of this.clients) if (c.address === address) n++;
    return n;
  }

  async add(client: Client): Promise<void> {
    this.clients.add(client);
    this.write(client, `retry: ${RETRY_MS}\n\n`);
    // The first screen after a quiet spell gets figures computed now, not kept ones.
    if (this.last && this.timer) this.write(client, this.last.event);
    else await this.tick();
    if (!this.timer && this.clients.size > 0 && !this.closed) {
      this.timer = setInterval(() => void this.tick(), this.opts.intervalMs);
      this.heartbeat = setInterval(() => this.beat(), this.opts.heartbeatMs);
    }
  }

  remove(client: Client): void {
    this.clients.delete(client);
    if (this.clients.size > 0) return;
    // Nobody watching: no computation, and the next screen starts from a fresh snapshot.
    if (this.timer) clearInterval(this.timer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.timer = null;
    this.heartbeat = null;
    this.last = null;
  }

  /** Server shutdown: every stream ends, and none opens after. */
  closeAll(): void {
    this.closed = true;
    for (const c of [...this.clients]) {
      c.reply.raw.end();
      this.remove(c);
    }
  }

  /** A heartbeat the page can see (a comment would reach only the browser), with the time, and the end of streams past their lifetime. */
  private beat(): void {
    const now = this.opts.now();
    for (const c of [...this.clients]) {
      if (now - c.openedAt >= this.opts.maxStreamMs) {
        // Browsers reconnect after `retry`; long-lived streams would pin a process's slots for good.
        c.reply.raw.end();
        this.remove(c);
      }
    }
    this.send(`event: heartbeat\ndata: {"at":"${new Date(now).toISOString()}"}\n\n`);
  }

  private write(client: Client, text: string): void {
    const raw = client.reply.raw;
    if (raw.destroyed || raw.writableEnded) {
      this.remove(client);
      return;
    }
    raw.write(text);
    if (raw.writableLength > MAX_BUFFERED_BYTES) {
      raw.destroy();
      this.remove(client);
    }
  }

  private send(text: string): void {
    for (const c of [...this.clients]) this.write(c, text);
  }

  private tick(): Promise<void> {
    // A screen that joins while a computation runs waits for it, and gets its result.
    this.computing ??= this.compute().finally(() => { this.computing = null; });
    return this.computing;
  }

  private async compute(): Promise<void> {
    try {
      const snapshot = await this.opts.floor.snapshot(this.viewer, this.opts.now());
      // Everyone left while it was computed: keep nothing, the next screen computes afresh.
      if (this.clients.size === 0) return;
      const content = contentOf(snapshot);
      if (this.last?.content === content) return;
      const event = `event: snapshot\ndata: ${JSON.stringify(snapshot)}\n\n`;
      this.last = { content, event };
      this.send(event);
    } catch (err) {
      // The store is down or slow: screens keep the last figures and show their age.
      this.opts.logger.warn({ err }, 'floor stream snapshot failed');
    }
  }
}

export const floorStreamRoutes: FastifyPluginAsync<FloorStreamOptions> = async (app, opts) => {
  const hub = new FloorBroadcaster({
    floor: opts.floor, logger: opts.logger, readAuth: opts.readAuth, now: opts.now ?? Date.now, intervalMs: opts.intervalMs ?? 1000,
    heartbeatMs: opts.heartbeatMs ?? 15_000, maxClients: opts.maxClients ?? 500, maxPerAddress: opts.maxPerAddress ?? 50,
    maxStreamMs: opts.maxStreamMs ?? 15 * 60_000,
  });
  // Open streams would hold the server's close forever.
  app.addHook('preClose', async () => hub.closeAll());

  app.get(FLOOR_STREAM_PATH, {
    config: { access: 'public', rateClass: 'floor' },
    schema: {
      summary: 'The floor without a key as server-sent events: a `snapshot` event (the body of GET /api/floor without a key: every account and chatter while reads are open, totals only with READ_AUTH=required) when the figures change, at most once a second, and `heartbeat` events',
      response: {
        200: { description: 'text/event-stream: `snapshot` events (data: the GET /api/floor body), `heartbeat` events (data: {"at": …})', content: { 'text/event-stream': { schema: { type: 'string' } } } },
        ...errorResponses('UNAUTHORIZED', 'RATE_LIMITED', 'NOT_READY'),
      },
    },
  }, async (request: FastifyRequest, reply: FastifyReply) => {
    if (hub.size >= (opts.maxClients ?? 500)) throw new ApiError('NOT_READY', `floor stream: ${hub.size} screens are connected, the most this process serves; retry later`);
    if (hub.countFrom(request.ip) >= (opts.maxPerAddress ?? 50)) throw new ApiError('RATE_LIMITED', 'floor stream: too many open streams from this client address; close some');
    if (hub.isClosed) throw new ApiError('NOT_READY', 'floor stream: the server is shutting down; reconnect shortly');
    reply.hijack();
    // The caller may have gone while the hooks before this ran (a key check, the rate limit):
    // its close event has fired already, and it must not take a slot.
    if (request.raw.destroyed || reply.raw.destroyed) return;
    // A stream is quiet between pushes; the heartbeat, not the idle timeout, keeps it honest.
    request.raw.socket.setTimeout(0);
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'x-request-id': request.id,
    });
    const client: Client = { reply, address: request.ip, openedAt: (opts.now ?? Date.now)() };
    reply.raw.on('close', () => hub.remove(client));
    await hub.add(client);
  });
};
