// GET /api/floor/stream: the floor without a key as server-sent events, for the wallboard page.
// One computation per second serves every screen (however many hang on the floor), and a
// snapshot is pushed only when it differs from the last one: one RxJS pipeline says so (a
// timer, one computation at a time, distinct snapshots, shared with a replay of the newest)
// instead of timers, the last snapshot and the computation in flight kept by hand. Heartbeats
// keep proxies from closing an idle stream; `retry` tells browsers how soon to reconnect. The
// view without a key
// only (EventSource cannot send one, and the wall is read by anyone walking past): the public
// view while reads are open, totals only with READ_AUTH=required. A key sent anyway changes
// nothing: every screen shares the one computation.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ReadAuth } from '../../access/access-model.js';
import { distinctUntilKeyChanged, exhaustMap, filter, map, ReplaySubject, share, Subscription, timer, type Observable } from 'rxjs';
import { floorViewer, type FloorViewer } from '../../read-side/floor.js';
import type { FloorAnswers } from '../floor-answer.js';
import type { Logger } from '../../support/logger.js';
import { ApiError, errorResponses } from '../errors.js';

export const FLOOR_STREAM_PATH = '/api/floor/stream';

export interface FloorStreamOptions {
  readonly floor: FloorAnswers;
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

export interface Client {
  readonly reply: FastifyReply;
  readonly address: string;
  readonly openedAt: number;
}

const RETRY_MS = 3000;
/** A reader that lets this much pile up unread is cut off (it reconnects if it is alive). */
const MAX_BUFFERED_BYTES = 256 * 1024;

interface Pushed {
  /** What changes a screen: everything but the snapshot's own time. */
  readonly content: string;
  readonly event: string;
}

export class FloorBroadcaster {
  private readonly clients = new Map<Client, Subscription>();
  /** Snapshot events, as they change. */
  private readonly snapshots$: Observable<string>;
  /** The time of each heartbeat. */
  private readonly heartbeats$: Observable<number>;
  private closed = false;

  constructor(private readonly opts: Required<Omit<FloorStreamOptions, 'logger'>> & { readonly logger: Logger }) {
    const viewer = floorViewer(null, false, opts.readAuth);
    this.snapshots$ = timer(0, opts.intervalMs).pipe(
      // A computation slower than the interval is not queued behind: the ticks it overlaps are dropped.
      exhaustMap(() => this.compute(viewer)),
      filter((p): p is Pushed => p !== null),
      distinctUntilKeyChanged('content'),
      map((p) => p.event),
      // One computation for every screen; a screen that joins gets the newest snapshot at once.
      // Nobody watching: nothing runs, and the next screen starts from figures computed afresh.
      share({ connector: () => new ReplaySubject<string>(1), resetOnRefCountZero: true }),
    );
    this.heartbeats$ = timer(opts.heartbeatMs, opts.heartbeatMs).pipe(map(() => opts.now()), share());
  }

  get size(): number {
    return this.clients.size;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  countFrom(address: string): number {
    let n = 0;
    for (const c of this.clients.keys()) if (c.address === address) n++;
    return n;
  }

  add(client: Client): void {
    this.clients.set(client, Subscription.EMPTY);
    this.write(client, `retry: ${RETRY_MS}\n\n`);
    if (!this.clients.has(client)) return;
    const beats = this.heartbeats$.pipe(map((now) => {
      // Browsers reconnect after `retry`; long-lived streams would pin a process's slots for good.
      if (now - client.openedAt >= this.opts.maxStreamMs) this.end(client);
      // A heartbeat the page can see (a comment would reach only the browser), with the time.
      return `event: heartbeat\ndata: {"at":"${new Date(now).toISOString()}"}\n\n`;
    }));
    const subscription = this.snapshots$.subscribe((text) => this.write(client, text));
    subscription.add(beats.subscribe((text) => this.write(client, text)));
    if (this.clients.has(client)) this.clients.set(client, subscription);
    else subscription.unsubscribe();
  }

  remove(client: Client): void {
    this.clients.get(client)?.unsubscribe();
    this.clients.delete(client);
  }

  /** Server shutdown: every stream ends, and none opens after. */
  closeAll(): void {
    this.closed = true;
    for (const c of [...this.clients.keys()]) this.end(c);
  }

  private end(client: Client): void {
    client.reply.raw.end();
    this.remove(client);
  }

  private write(client: Client, text: string): void {
    if (!this.clients.has(client)) return;
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

  private async compute(viewer: FloorViewer): Promise<Pushed | null> {
    try {
      const snapshot = await this.opts.floor.snapshot(viewer, this.opts.now());
      return { content: JSON.stringify({ ...snapshot, at: null }), event: `event: snapshot\ndata: ${JSON.stringify(snapshot)}\n\n` };
    } catch (err) {
      // The store is down or slow: screens keep the last figures and show their age.
      this.opts.logger.warn({ err }, 'floor stream snapshot failed');
      return null;
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
        ...errorResponses('INVALID_INPUT', 'UNAUTHORIZED', 'RATE_LIMITED', 'NOT_READY'),
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
    // Guarded: under inject() (light-my-request) the socket is a stand-in without setTimeout,
    // and an unguarded call threw after the hijack, leaving the request hanging.
    request.raw.socket?.setTimeout?.(0);
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'x-request-id': request.id,
    });
    const client: Client = { reply, address: request.ip, openedAt: (opts.now ?? Date.now)() };
    reply.raw.on('close', () => hub.remove(client));
    hub.add(client);
  });
};
