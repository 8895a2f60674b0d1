// Request ids: a caller's `x-request-id` is kept when it is a sane token (so a proxy's or a
// client's id follows the request through our logs), otherwise one is made. The id is echoed
// in the response header and in every error body, and Fastify puts it on each log line
// (`reqId`), so a user's "it said 503" can be found in the logs.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';
/** Printable, no spaces or quotes, short: anything else is a client's noise or an injection attempt on log readers. */
const ACCEPTED = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  const value = Array.isArray(given) ? given[0] : given;
  return value !== undefined && ACCEPTED.test(value) ? value : randomUUID();
}

/** Fastify options that make `request.id` the request id. */
export const requestIdOptions = { genReqId: requestIdOf, requestIdHeader: false } as const;

export function installRequestIds(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
  });
  // Error bodies are small JSON objects made by errors.ts; the id is added to them here, after
  // serialisation, so every way a route can fail carries it without each one passing it along.
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode < 400 || typeof payload !== 'string' || !payload.startsWith('{')) return payload;
    try {
      const body = JSON.parse(payload) as unknown;
      if (body === null || typeof body !== 'object' || Array.isArray(body) || !('code' in body)) return payload;
      return JSON.stringify({ ...body, requestId: request.id });
    } catch {
      return payload;
    }
  });
}
