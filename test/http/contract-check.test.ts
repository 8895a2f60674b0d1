// The contract check the suite relies on catches what it is for: a field the schema leaves out
// (which the serializer would silently drop), a value of the wrong type (which it would
// coerce), and a status the route does not declare; hidden routes (the pages) are left out. On a
// small server of its own, so the check is tested apart from the service it checks.
import Fastify, { type FastifyInstance, type FastifySchema } from 'fastify';
import swagger from '@fastify/swagger';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ContractCheck } from '../support/contract-check.js';

const Answer = { type: 'object', required: ['count'], properties: { count: { type: 'integer' }, note: { type: ['string', 'null'] } } } as const;

async function serverAnswering(body: () => unknown, status = 200): Promise<{ app: FastifyInstance; check: ContractCheck }> {
  const app = Fastify();
  await app.register(swagger, { openapi: { openapi: '3.1.0', info: { title: 't', version: '1' } } });
  // Failing, never logging, whatever CONTRACT_LOG says: this test is about the failing.
  const check = new ContractCheck(app, null);
  // Typed loosely, so the route may answer a status it does not declare.
  const schema: FastifySchema = { response: { 200: Answer, 404: { type: 'object', properties: { code: { type: 'string' } } } } };
  app.get('/thing', { schema }, async (_req, reply) => reply.status(status).send(body()));
  app.get('/hidden', { schema: { hide: true } }, async () => ({ anything: true }));
  await app.ready();
  return { app, check };
}

describe('the contract check', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => { await app?.close(); });

  it('passes an answer the document declares', async () => {
    const s = await serverAnswering(() => ({ count: 2, note: null }));
    app = s.app;
    await app.inject({ url: '/thing' });
    expect(() => s.check.assertKept()).not.toThrow();
    await app.inject({ url: '/hidden' });
    expect(() => s.check.assertKept()).not.toThrow();
  });

  it('fails on a field the schema leaves out, though the serializer drops it', async () => {
    const s = await serverAnswering(() => ({ count: 2, secretField: 'x' }));
    app = s.app;
    const res = await app.inject({ url: '/thing' });
    expect(res.json()).toEqual({ count: 2 });
    expect(() => s.check.assertKept()).toThrow(/GET \/thing 200: body does not match.*secretField/);
  });

  it('fails on a value of the wrong type, though the serializer coerces it', async () => {
    const s = await serverAnswering(() => ({ count: 2.5 }));
    app = s.app;
    await app.inject({ url: '/thing' });
    expect(() => s.check.assertKept()).toThrow(/\/count must be integer/);
  });

  it('fails on a status the route does not declare', async () => {
    const s = await serverAnswering(() => ({ count: 1 }), 202);
    app = s.app;
    await app.inject({ url: '/thing' });
    expect(() => s.check.assertKept()).toThrow(/GET \/thing answered 202, which it does not declare \(declared: 200, 404\)/);
  });

  it('checks a non-2xx answer with a schema of its own before the serializer too (a 503 health report)', async () => {
    const s = await serverAnswering(() => ({ code: 'degraded', extra: 'dropped by the serializer' }), 404);
    app = s.app;
    const res = await app.inject({ url: '/thing' });
    expect(res.json()).toEqual({ code: 'degraded' });
    expect(() => s.check.assertKept()).toThrow(/GET \/thing 404: body does not match.*extra/);
  });

  it('passes a streamed CSV answer its status declares as text/csv, and fails one of an undeclared status or media type', async () => {
    app = Fastify();
    await app.register(swagger, { openapi: { openapi: '3.1.0', info: { title: 't', version: '1' } } });
    const check = new ContractCheck(app, null);
    const csv = { description: 'a file', content: { 'text/csv': { schema: { type: 'string' } }, 'application/x-ndjson': { schema: { type: 'object' } } } };
    const schema: FastifySchema = { querystring: { type: 'object', properties: { status: { type: 'integer' }, type: { type: 'string' } } }, response: { 200: csv } };
    app.get('/file', { schema }, async (request, reply) => {
      const q = request.query as { status?: number; type?: string };
      return reply.status(q.status ?? 200).type(q.type ?? 'text/csv; charset=utf-8').send(Readable.from(['a,b\r\n', '1,2\r\n']));
    });
    await app.ready();
    const ok = await app.inject({ url: '/file' });
    expect(ok.body).toBe('a,b\r\n1,2\r\n');
    expect(() => check.assertKept()).not.toThrow();
    await app.inject({ url: '/file?type=application/x-ndjson' });
    expect(() => check.assertKept()).not.toThrow();
    await app.inject({ url: '/file?status=206' });
    expect(() => check.assertKept()).toThrow(/GET \/file answered 206, which it does not declare \(declared: 200\)/);
    await app.inject({ url: '/file?type=text/html' });
    expect(() => check.assertKept()).toThrow(/GET \/file answered 200 as text\/html, which it does not declare for that status \(declared: text\/csv, application\/x-ndjson\)/);
  });
});
