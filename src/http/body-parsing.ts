// How every route but the webhook (which keeps its bytes for the signature: routes/webhook.ts)
// reads a JSON body, and which bodies no route reads at all.
import type { FastifyInstance } from 'fastify';
import { parseCheckedJson } from '../domain/json.js';
import { ApiError, invalidInput } from './errors.js';

/**
 * A body is taken as sent (Content-Encoding identity, or none). Fastify does not decode
 * compressed bodies: a gzip body would be read as bytes and refused as "not valid JSON", and a
 * plain body labelled gzip accepted. Decoding would let a few kilobytes inflate past the body
 * limit before it is checked, and the platform signs the bytes it sends uncompressed.
 */
export function refuseContentEncodings(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const raw = request.headers['content-encoding'];
    // Only what takes a body: a client that sets the header on every request can still read.
    if (raw === undefined || request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return;
    const codings = (Array.isArray(raw) ? raw.join(',') : raw).split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');
    if (codings.length === 0) return;
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `content-encoding: ${codings.join(', ').slice(0, 40)} is not accepted; send the body uncompressed (identity)`);
  });
}

/**
 * The JSON parser of the API's own routes: Fastify's refuses `__proto__` as "not valid JSON" and
 * keeps the last of two equal keys; this one says what is wrong, and where, as the webhook
 * door does (domain/json.ts parseCheckedJson).
 */
export function parseBodiesStrictly(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') {
      done(invalidInput('body', 'must not be empty'), undefined);
      return;
    }
    let parsed: ReturnType<typeof parseCheckedJson>;
    try {
      parsed = parseCheckedJson(text, undefined, false);
    } catch {
      done(invalidInput('body', 'is not valid JSON'), undefined);
      return;
    }
    const at = parsed.unsafe?.at;
    if (parsed.unsafe) done(invalidInput(at ? `body${at.startsWith('[') ? '' : '.'}${at}` : 'body', parsed.unsafe.reason), undefined);
    else done(null, parsed.value);
  });
}
