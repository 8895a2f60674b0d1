// What Node's HTTP parser refuses before Fastify sees a request answers in the error
// catalogue's shape too, with a request id: headers (or a query string) past the header limit
// (431), and bytes that are not HTTP (400). These need a real socket: inject() has no parser.
import { connect } from 'node:net';
import { maxHeaderSize } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';

/** Sends raw bytes and reads until the server closes: the status line, the headers, the body. */
function raw(port: number, bytes: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
    let got = '';
    socket.on('data', (d) => { got += d.toString('utf8'); });
    socket.on('error', (err) => (got ? undefined : reject(err)));
    socket.on('close', () => {
      const [head = '', body = ''] = got.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head, body });
    });
  });
}

describe('refusals from the HTTP parser', () => {
  let app: RunningApp;
  let port = 0;
  beforeAll(async () => {
    app = await startWithEnv(await deploymentEnv('embedded', { ROLES: 'api' }));
    port = Number(new URL(app.url ?? '').port);
  });
  afterAll(async () => {
    await app?.stop();
    removeDataDirs();
  });

  it('answers a query string past the header limit with 431 in the catalogue\'s shape', async () => {
    const r = await raw(port, `GET /api/sessions?accountId=${'a'.repeat(maxHeaderSize + 10)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(r.status).toBe(431);
    const body = JSON.parse(r.body) as Record<string, unknown>;
    expect(body).toMatchObject({ statusCode: 431, error: 'Request Header Fields Too Large', code: 'INVALID_INPUT', message: expect.stringContaining('headers:') });
    expect(body.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.headers.toLowerCase()).toContain(`x-request-id: ${String(body.requestId)}`);
  });

  it('answers bytes that are not HTTP with 400 in the catalogue\'s shape', async () => {
    const r = await raw(port, 'HELLO THERE\r\n\r\n');
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toMatchObject({ statusCode: 400, code: 'INVALID_INPUT', message: 'request: not a valid HTTP request', requestId: expect.any(String) });
  });
});
