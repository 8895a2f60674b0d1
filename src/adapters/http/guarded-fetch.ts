// Outbound HTTP with limits: every call convops makes to another service (the platform API, its
// readiness probe, the model provider) goes through here. Redirects are followed by hand and
// only within the origin the caller may reach (a redirect elsewhere would carry the bearer key
// or the request to a host nobody configured); the body is read with a byte cap, so a huge or
// endless answer cannot exhaust memory; and one timeout covers the whole exchange, every hop and
// the body included, so an answer that trickles in is cut off like one that never starts.

/** The largest response body read by default (16 MiB; `OUTBOUND_MAX_RESPONSE_BYTES`). */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1_048_576;
/** Same-origin redirects followed before giving up (a loop ends here). */
export const DEFAULT_MAX_REDIRECTS = 5;

/** A refusal by the guard itself: the same request would be refused again, so it is not worth retrying. */
export class OutboundGuardError extends Error {
  override name = 'OutboundGuardError';
}

/**
 * A request or redirect to an origin other than the allowed one. Names only the origins, never
 * the full URL: a redirect target's query may carry secrets.
 */
export class OutboundOriginRefused extends OutboundGuardError {
  override name = 'OutboundOriginRefused';
  constructor(readonly targetOrigin: string, readonly allowedOrigin: string, readonly viaRedirect: boolean) {
    super(viaRedirect
      ? `refused a redirect to ${targetOrigin}: only ${allowedOrigin} may be called`
      : `refused to call ${targetOrigin}: only ${allowedOrigin} may be called`);
  }
}

/** More same-origin redirects than allowed (a redirect loop ends here). */
export class OutboundTooManyRedirects extends OutboundGuardError {
  override name = 'OutboundTooManyRedirects';
  constructor(readonly maxRedirects: number, readonly origin: string) {
    super(`${origin} redirected more than ${maxRedirects} times: giving up`);
  }
}

/** A response body larger than the cap; `declared` is its content-length when that gave it away. */
export class OutboundResponseTooLarge extends OutboundGuardError {
  override name = 'OutboundResponseTooLarge';
  constructor(readonly maxBytes: number, readonly declared: number | null, readonly origin: string) {
    super(declared !== null
      ? `${origin} announced a ${declared}-byte response, more than the ${maxBytes}-byte limit: not read`
      : `${origin} sent a response larger than the ${maxBytes}-byte limit: reading stopped there`);
  }
}

/** The exchange (all redirects and the body) did not finish in time. Worth retrying, unlike the refusals. */
export class OutboundTimeout extends Error {
  override name = 'OutboundTimeout';
  constructor(readonly timeoutMs: number, readonly origin: string) {
    super(`${origin} did not answer in full within ${timeoutMs} ms`);
  }
}

export interface GuardedFetchOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Covers the whole exchange: every redirect hop and the reading of the body. */
  readonly timeoutMs: number;
  /** The only origin requested, redirects included; defaults to the origin of `url`. */
  readonly allowedOrigin?: string;
  /** Defaults to DEFAULT_MAX_RESPONSE_BYTES. */
  readonly maxResponseBytes?: number;
  /** Defaults to DEFAULT_MAX_REDIRECTS. */
  readonly maxRedirects?: number;
  /** false: the body is discarded unread (a probe that only needs the status). */
  readonly readBody?: boolean;
  /** Aborts the exchange from outside; its reason is thrown as is. */
  readonly signal?: AbortSignal;
}

export interface GuardedResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: Headers;
  /** The URL that answered, after same-origin redirects. */
  readonly url: URL;
  readonly body: Uint8Array;
  text(): string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export async function guardedFetch(url: string | URL, options: GuardedFetchOptions): Promise<GuardedResponse> {
  let current = new URL(url);
  const allowed = options.allowedOrigin ?? current.origin;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  if (current.origin !== allowed) throw new OutboundOriginRefused(current.origin, allowed, false);
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  let method = (options.method ?? 'GET').toUpperCase();
  let headers = { ...options.headers };
  let body = options.body;
  try {
    for (let hop = 0; ; hop++) {
      const res = await fetch(current, { method, headers, body, signal, redirect: 'manual' });
      const location = REDIRECTS.has(res.status) ? res.headers.get('location') : null;
      if (location === null) {
        const bytes = options.readBody === false ? await discard(res) : await readCapped(res, maxBytes, allowed);
        return { status: res.status, ok: res.ok, headers: res.headers, url: current, body: bytes, text: () => new TextDecoder().decode(bytes) };
      }
      await discard(res);
      let target: URL;
      try {
        target = new URL(location, current);
      } catch {
        throw new OutboundOriginRefused('an unparsable location', allowed, true);
      }
      if (target.origin !== allowed) throw new OutboundOriginRefused(target.origin, allowed, true);
      if (hop >= maxRedirects) throw new OutboundTooManyRedirects(maxRedirects, allowed);
      // As fetch does: 303 (and 301/302 after a POST) continue as a GET without the body.
      if ((res.status === 303 && method !== 'HEAD') || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        headers = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'content-type'));
      }
      current = target;
    }
  } catch (err) {
    if (timeout.aborted && !(err instanceof OutboundGuardError)) throw new OutboundTimeout(options.timeoutMs, allowed);
    throw err;
  }
}

async function discard(res: Response): Promise<Uint8Array> {
  await res.body?.cancel().catch(() => undefined);
  return new Uint8Array(0);
}

/** Reads at most `maxBytes`; refuses at once when content-length already says more, and stops reading as soon as the cap is passed. */
async function readCapped(res: Response, maxBytes: number, origin: string): Promise<Uint8Array> {
  const length = res.headers.get('content-length');
  const declared = length !== null && /^\d+$/.test(length.trim()) ? Number(length) : null;
  if (declared !== null && declared > maxBytes) {
    await discard(res);
    throw new OutboundResponseTooLarge(maxBytes, declared, origin);
  }
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new OutboundResponseTooLarge(maxBytes, null, origin);
    }
    chunks.push(value);
  }
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
