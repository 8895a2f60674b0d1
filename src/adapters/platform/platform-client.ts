// A client for the platform's REST API: bearer key, the {data, _pagination, _meta} envelope and
// its exceptions, the three paging styles, rate-limit headers honoured before a 429 happens,
// 429/5xx retried with backoff and jitter, timeouts, ids kept as strings (bodies are parsed
// without losing integers beyond 2^53), and requests only ever to the configured base URL:
// redirects are followed only within its origin, and answers are read up to a byte cap.
import { trimTrailingSlashes } from '../../support/url.js';
import { idString, isObject, parseJson, type JsonObject } from '../../domain/json.js';
import { guardedFetch, OutboundGuardError, OutboundOriginRefused, OutboundResponseTooLarge, type GuardedResponse } from '../http/guarded-fetch.js';

export interface PlatformClientOptions {
  readonly baseUrl: string;
  readonly apiKey: string | null;
  readonly timeoutMs?: number;
  readonly maxRetries?: number;
  /** Length of the platform's rate-limit window (per minute on the real API). */
  readonly rateWindowMs?: number;
  /** Largest response body read (`OUTBOUND_MAX_RESPONSE_BYTES`); larger answers are refused as 'bad-response'. Default 16 MiB. */
  readonly maxResponseBytes?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export type PlatformErrorKind = 'missing-key' | 'unauthorized' | 'not-found' | 'rate-limited' | 'unavailable' | 'refused' | 'bad-response';

/** A failure to talk to the platform, with a message an admin can act on. */
export class PlatformError extends Error {
  constructor(readonly kind: PlatformErrorKind, message: string, readonly status: number | null = null) {
    super(message);
    this.name = 'PlatformError';
  }
}

export interface Page<T> {
  readonly items: T[];
  /** The next page's full URL, or null on the last page. */
  readonly next: string | null;
}

const sleeper = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class PlatformClient {
  private readonly origin: string;
  private windowStartedAt = 0;
  private remaining: number | null = null;
  requests = 0;
  waitedMs = 0;

  constructor(private readonly options: PlatformClientOptions) {
    this.origin = new URL(options.baseUrl).origin;
  }

  get configured(): boolean {
    return this.options.apiKey !== null;
  }

  /** GET or send a request; `path` is under the base URL or a full next-page URL on the same origin. */
  async request(method: string, path: string, body?: unknown): Promise<unknown> {
    if (this.options.apiKey === null) throw new PlatformError('missing-key', 'PLATFORMAPI_KEY is not set: configure the platform API key to use this operation');
    const url = this.resolve(path);
    if (url.origin !== this.origin) throw new PlatformError('refused', `refusing to call ${url.origin}: only the configured PLATFORMAPI_BASE_URL (${this.origin}) is used`);
    const maxRetries = this.options.maxRetries ?? 5;
    for (let attempt = 0; ; attempt++) {
      await this.respectRateLimit();
      let res: GuardedResponse;
      try {
        this.requests++;
        res = await guardedFetch(url, {
          method,
          headers: { authorization: `Bearer ${this.options.apiKey}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
          timeoutMs: this.options.timeoutMs ?? 15_000,
          allowedOrigin: this.origin,
          maxResponseBytes: this.options.maxResponseBytes,
        });
      } catch (err) {
        // A foreign redirect, a redirect loop or an oversized answer would come again: not retried.
        if (err instanceof OutboundGuardError) throw this.guardError(err, `${method} ${url.pathname}`);
        if (attempt >= maxRetries) throw new PlatformError('unavailable', `the platform API did not answer (${err instanceof Error ? err.message : String(err)})`);
        await this.backoff(attempt, null);
        continue;
      }
      this.noteRateLimit(res.headers);
      const text = res.text();
      if (res.ok) {
        try {
          return text.length === 0 ? null : parseJson(text);
        } catch {
          throw new PlatformError('bad-response', `the platform answered ${method} ${url.pathname} with a body that is not JSON`);
        }
      }
      const retriable = res.status === 429 || res.status >= 500;
      if (retriable && attempt < maxRetries) {
        await this.backoff(attempt, res.headers.get('retry-after'));
        continue;
      }
      throw this.errorFor(res.status, text, `${method} ${url.pathname}`);
    }
  }

  private resolve(path: string): URL {
    return new URL(path, `${trimTrailingSlashes(this.options.baseUrl)}/`);
  }

  private guardError(err: OutboundGuardError, what: string): PlatformError {
    if (err instanceof OutboundOriginRefused) {
      return new PlatformError('refused', `the platform redirected ${what} to ${err.targetOrigin}: only the configured PLATFORMAPI_BASE_URL (${this.origin}) is called`);
    }
    if (err instanceof OutboundResponseTooLarge) {
      return new PlatformError('bad-response', `the platform's answer to ${what} is larger than ${err.maxBytes} bytes (OUTBOUND_MAX_RESPONSE_BYTES): not read`);
    }
    return new PlatformError('bad-response', `${what}: ${err.message}`);
  }

  private errorFor(status: number, text: string, what: string): PlatformError {
    let detail = '';
    try {
      const body = parseJson(text);
      if (isObject(body)) detail = String(body.message ?? body.error ?? '');
    } catch {
      detail = '';
    }
    const suffix = detail ? `: ${detail}` : '';
    if (status === 401 || status === 403) return new PlatformError('unauthorized', `the platform refused PLATFORMAPI_KEY (${status})${suffix}`, status);
    if (status === 404) return new PlatformError('not-found', `${what} not found on the platform${suffix}`, status);
    if (status === 429) return new PlatformError('rate-limited', `the platform's rate limit is exhausted and retries ran out${suffix}`, status);
    if (status === 503) return new PlatformError('unavailable', `the platform is unavailable or the account is re-authenticating (503)${suffix}`, status);
    if (status >= 500) return new PlatformError('unavailable', `the platform failed (${status})${suffix}`, status);
    return new PlatformError('refused', `the platform refused ${what} (${status})${suffix}`, status);
  }

  private noteRateLimit(headers: Headers): void {
    const limit = Number(headers.get('x-rate-limit-limit-minute'));
    const remaining = headers.get('x-rate-limit-remaining-minute');
    if (remaining === null) return;
    const left = Number(remaining);
    if (!Number.isFinite(left)) return;
    // The first request of a window leaves limit - 1: that is when the window started.
    if (Number.isFinite(limit) && (left === limit - 1 || this.remaining === null || left > this.remaining)) this.windowStartedAt = Date.now();
    this.remaining = left;
  }

  /** Waits out the window instead of running into a 429 when the headers say nothing is left. */
  private async respectRateLimit(): Promise<void> {
    if (this.remaining === null || this.remaining > 0) return;
    const wait = this.windowStartedAt + (this.options.rateWindowMs ?? 60_000) - Date.now();
    if (wait > 0) await this.pause(wait + 5);
    this.remaining = null;
  }

  private async backoff(attempt: number, retryAfter: string | null): Promise<void> {
    const hinted = retryAfter !== null && /^\d+(\.\d+)?$/.test(retryAfter) ? Number(retryAfter) * 1000 : null;
    const base = hinted ?? Math.min(30_000, 250 * 2 ** attempt);
    await this.pause(base + Math.floor(Math.random() * 100));
  }

  private async pause(ms: number): Promise<void> {
    this.waitedMs += ms;
    await (this.options.sleep ?? sleeper)(ms);
  }

  /**
   * Unwraps `{data, _pagination}`; `data` may itself be `{list, hasMore}` (transactions, fans).
   * The next page is `_pagination.next_page`; where `hasMore` is present it is authoritative,
   * and a page that says there is more without a link is followed by its marker, or refused:
   * taking it for the last page would report a partial history as complete.
   */
  private parsePage(body: unknown, url: URL): Page<JsonObject> {
    const what = `GET ${url.pathname}`;
    if (!isObject(body)) throw new PlatformError('bad-response', `${what}: the platform answered without the {data} envelope`);
    const data = body.data;
    const list = Array.isArray(data) ? data : isObject(data) && Array.isArray(data.list) ? data.list : null;
    if (!list) throw new PlatformError('bad-response', `${what}: the platform answered without a list in data`);
    const items = list.filter(isObject);
    const pagination = isObject(body._pagination) ? body._pagination : {};
    const link = typeof pagination.next_page === 'string' && pagination.next_page.length > 0 ? pagination.next_page : null;
    const hasMore = isObject(data) && typeof data.hasMore === 'boolean' ? data.hasMore : null;
    if (hasMore === false) return { items, next: null };
    if (link) return { items, next: link };
    if (hasMore !== true) return { items, next: null };
    const marker = isObject(data) ? idString(data.nextMarker) : undefined;
    if (marker) {
      const next = new URL(url);
      next.searchParams.set('marker', marker);
      return { items, next: next.toString() };
    }
    throw new PlatformError('bad-response', `${what} answered hasMore: true but gave no next page link (_pagination.next_page) and no data.nextMarker: the rest cannot be fetched, so the result would be incomplete`);
  }

  /** One page and the link to the next, for callers that keep their place between pages. */
  async page(path: string): Promise<Page<JsonObject>> {
    const url = this.resolve(path);
    const page = this.parsePage(await this.request('GET', path), url);
    // A link back to the same page would loop forever and never finish.
    if (page.next !== null && this.resolve(page.next).toString() === url.toString()) {
      throw new PlatformError('bad-response', `GET ${url.pathname} gave its own address as the next page link: the rest cannot be fetched`);
    }
    return page;
  }

  async *pages(firstPath: string): AsyncGenerator<JsonObject[]> {
    let path: string | null = firstPath;
    while (path) {
      const p = await this.page(path);
      yield p.items;
      path = p.next;
    }
  }

  /** `GET /api/accounts` answers a bare array. */
  async accounts(): Promise<JsonObject[]> {
    const body = await this.request('GET', 'api/accounts');
    if (!Array.isArray(body)) throw new PlatformError('bad-response', 'GET /api/accounts did not answer an array');
    return body.filter(isObject);
  }

  chats(account: string): AsyncGenerator<JsonObject[]> {
    return this.pages(`api/${encodeURIComponent(account)}/chats?limit=100&offset=0&order=recent`);
  }

  /** Newest first, by message-id cursor. */
  messages(account: string, chatId: string): AsyncGenerator<JsonObject[]> {
    return this.pages(`api/${encodeURIComponent(account)}/chats/${encodeURIComponent(chatId)}/messages?limit=100&order=desc`);
  }

  /** Newest first, by marker. */
  transactions(account: string, startDate: Date): AsyncGenerator<JsonObject[]> {
    return this.pages(`api/${encodeURIComponent(account)}/transactions?limit=100&startDate=${encodeURIComponent(startDate.toISOString())}`);
  }

  async startAuth(body: JsonObject): Promise<JsonObject> {
    return this.object(await this.request('POST', 'api/authenticate', body), 'POST /api/authenticate');
  }

  async pollAuth(attemptId: string): Promise<JsonObject> {
    return this.object(await this.request('GET', `api/authenticate/${encodeURIComponent(attemptId)}`), 'GET /api/authenticate/{attempt}');
  }

  async submit2fa(attemptId: string, code: string): Promise<JsonObject> {
    return this.object(await this.request('PUT', `api/authenticate/${encodeURIComponent(attemptId)}`, { code }), 'PUT /api/authenticate/{attempt}');
  }

  private object(body: unknown, what: string): JsonObject {
    if (!isObject(body)) throw new PlatformError('bad-response', `${what} did not answer an object`);
    return body;
  }
}
