// One delivery attempt over HTTP: a POST to the hook's URL, connected to the address
// destination.ts checked (so DNS cannot swap it between the check and the connection), with one
// timeout over the whole exchange, redirects not followed (a 3xx is a failed attempt: a redirect
// could lead anywhere, inside included), and at most a little of the answer read.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkedAddress, DestinationRefused, type Resolver } from './destination.js';

export const DELIVERY_TIMEOUT_MS = 5_000;
const MAX_ANSWER_BYTES = 4_096;

export type AttemptOutcome =
  | { readonly ok: true; readonly httpStatus: number }
  | { readonly ok: false; readonly httpStatus: number | null; readonly error: string; readonly refused: boolean };

export interface SendOptions {
  readonly allowPrivate: boolean;
  readonly timeoutMs?: number;
  readonly resolve?: Resolver;
  readonly userAgent?: string;
}

export async function sendOnce(rawUrl: string, headers: Record<string, string>, body: string, opts: SendOptions): Promise<AttemptOutcome> {
  const url = new URL(rawUrl);
  const timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  // The timeout covers the name's resolution too: a resolver that never answers is an attempt that failed.
  const deadline = Date.now() + timeoutMs;
  let dnsTimer: NodeJS.Timeout | undefined;
  let target;
  try {
    target = await Promise.race([
      checkedAddress(url.hostname, opts.allowPrivate, opts.resolve),
      new Promise<never>((_, reject) => { dnsTimer = setTimeout(() => reject(new Error(`no address within ${timeoutMs} ms`)), timeoutMs); }),
    ]);
  } catch (err) {
    const refused = err instanceof DestinationRefused;
    return { ok: false, httpStatus: null, refused, error: refused ? (err as Error).message : `DNS: ${(err as Error).message}` };
  } finally {
    clearTimeout(dnsTimer);
  }
  const pinned: LookupFunction = (_host, options, callback) => {
    if (options.all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(outcome);
    };
    const req = request(url, {
      method: 'POST',
      lookup: pinned,
      headers: {
        'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': opts.userAgent ?? 'convops-alert-hooks',
        ...headers,
      },
    }, (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) done();
      });
      const done = () => finish(status >= 200 && status < 300
        ? { ok: true, httpStatus: status }
        : { ok: false, httpStatus: status, refused: false, error: status >= 300 && status < 400 ? `answered ${status} (redirects are not followed)` : `answered ${status}` });
      res.on('end', done);
      res.on('error', done);
    });
    const timer = setTimeout(() => finish({ ok: false, httpStatus: null, refused: false, error: `no full answer within ${timeoutMs} ms` }), Math.max(0, deadline - Date.now()));
    req.on('error', (err) => finish({ ok: false, httpStatus: null, refused: false, error: err.message }));
    req.end(body);
  });
}
