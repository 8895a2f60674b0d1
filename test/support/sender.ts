// Delivers webhooks the way the platform does: signed, one after another, and again after
// any answer that is not 2xx (or no answer at all) until one is. Counts what it saw, so fault
// tests can show the service refused rather than lost. With `lanes`, chats are spread over
// that many senders working at once, each chat's deliveries in their order on one lane (the
// platform sends a chat's events in order; chats do not wait for each other).
import { parseJson } from '../../src/domain/json.js';
import { routeWebhook } from '../../src/domain/webhook-route.js';
import { signBody } from '../../src/ingest/signature.js';
import type { Delivery } from './fault-input.js';

export interface SendStats {
  /** Answers by status; 0 counts requests that got no answer (connection refused or reset). */
  readonly statuses: Map<number, number>;
  accepted: number;
  retries: number;
}

export interface SendOptions {
  readonly secret?: string;
  /** Called after each accepted delivery, with how many have been accepted. */
  readonly onAccepted?: (accepted: number) => void | Promise<void>;
  /** A delivery that cannot get a 2xx in this long fails the test. */
  readonly giveUpAfterMs?: number;
  /** Senders at once, each with its own chats (1: every delivery one after another, in list order). */
  readonly lanes?: number;
}

/** The chat a delivery is about (deliveries of one chat keep their order). */
export function chatOf(d: Delivery): string {
  const routed = routeWebhook(parseJson(d.body), d.key, Buffer.from(d.body));
  return routed.ok ? `${routed.route.accountId}:${routed.route.chatId}` : d.key;
}

/** The deliveries split into `lanes` lists, each chat's on one, in their order. */
export function byLane(deliveries: readonly Delivery[], lanes: number): Delivery[][] {
  const out: Delivery[][] = Array.from({ length: lanes }, () => []);
  const laneOf = new Map<string, number>();
  for (const d of deliveries) {
    const chat = chatOf(d);
    let lane = laneOf.get(chat);
    if (lane === undefined) {
      lane = laneOf.size % lanes;
      laneOf.set(chat, lane);
    }
    out[lane]?.push(d);
  }
  return out;
}

export async function deliverAll(url: () => string, deliveries: readonly Delivery[], opts: SendOptions = {}): Promise<SendStats> {
  const stats: SendStats = { statuses: new Map(), accepted: 0, retries: 0 };
  const count = (status: number): void => { stats.statuses.set(status, (stats.statuses.get(status) ?? 0) + 1); };
  const deliver = async (d: Delivery): Promise<void> => {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-ofapi-idempotency-key': d.key };
    if (opts.secret) headers.signature = signBody(opts.secret, d.body);
    const deadline = Date.now() + (opts.giveUpAfterMs ?? 120_000);
    let backoff = 50;
    for (;;) {
      const status = await fetch(`${url()}/webhooks/platform`, { method: 'POST', headers, body: d.body, signal: AbortSignal.timeout(20_000) })
        .then(async (res) => { await res.arrayBuffer(); return res.status; }, () => 0);
      count(status);
      if (status >= 200 && status < 300) break;
      if (status >= 400 && status < 500 && status !== 408 && status !== 429) throw new Error(`delivery ${d.key} refused with ${status}`);
      if (Date.now() > deadline) throw new Error(`delivery ${d.key} got no 2xx for ${opts.giveUpAfterMs ?? 120_000} ms (last ${status})`);
      stats.retries++;
      await new Promise((r) => setTimeout(r, backoff));
      backoff = Math.min(1000, backoff * 2);
    }
    stats.accepted++;
    await opts.onAccepted?.(stats.accepted);
  };
  const lanes = opts.lanes ?? 1;
  if (lanes <= 1) {
    for (const d of deliveries) await deliver(d);
  } else {
    await Promise.all(byLane(deliveries, lanes).map(async (lane) => { for (const d of lane) await deliver(d); }));
  }
  return stats;
}
