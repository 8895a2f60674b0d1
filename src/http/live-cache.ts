// Wallboards poll the live routes every few seconds, twenty screens at a time. Within a short
// time-to-live, callers who would get the same answer (same route, query, scope and view)
// share one computation, and concurrent ones share the one in flight, so the figures cost
// the same for one screen as for a floor of them and the event loop stays free for ingest.
// Bounded, so varied queries cannot grow it.
import type { FastifyRequest } from 'fastify';
import { LruMap } from '../support/lru.js';
import { requestScope } from './access.js';

interface Entry {
  readonly at: number;
  readonly value: Promise<unknown>;
}

export class LiveCache {
  private readonly entries = new LruMap<string, Entry>(1_000);

  constructor(private readonly ttlMs: number, private readonly clock: () => number = Date.now) {}

  /** What `compute` answers for this request, computed at most once per time-to-live per answer. */
  async answer<T>(request: FastifyRequest, compute: () => Promise<T>): Promise<T> {
    if (this.ttlMs <= 0) return compute();
    const scope = requestScope(request);
    const key = JSON.stringify([request.routeOptions.url, request.url.split('?')[1] ?? '', request.principal.kind === 'anonymous', scope === null ? null : [...scope].sort()]);
    const now = this.clock();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value as Promise<T>;
    const value = compute();
    this.entries.set(key, { at: now, value });
    // A failure is not kept: the next caller tries again.
    value.catch(() => this.entries.delete(key));
    return value;
  }
}
