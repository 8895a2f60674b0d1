// Values no route can use, refused at the door of every JSON route as at the webhook's: a lone
// surrogate in any key or string of a body, and a number JSON can write but no route can use
// (1e309 parses to Infinity). Found by the OpenAPI fuzz: both were stored or acted on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/app-harness.js';

const ADMIN = 'admin-token-for-malformed-values-01';

describe('malformed values in admin bodies', () => {
  let app: Harness;
  beforeAll(async () => { app = await startHarness({ ADMIN_TOKEN: ADMIN }, { driven: true }); });
  afterAll(async () => { await app?.stop(); });
  const post = (url: string, payload: string) => app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, payload });

  it('refuses a lone surrogate in a key name, naming the field, and stores nothing', async () => {
    const res = await post('/api/admin/keys', '{"name":"ops \\ud800","role":"viewer"}');
    expect(res?.statusCode).toBe(400);
    expect(res?.json()).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('body.name: must be well-formed Unicode') });
    const keys = await app.inject({ method: 'GET', url: '/api/admin/keys', headers: { authorization: `Bearer ${ADMIN}` } });
    expect((keys?.json() as { items: unknown[] }).items).toEqual([]);
    expect((await post('/api/admin/keys', '{"name":"ops \\ud83d\\ude00","role":"viewer"}'))?.statusCode).toBe(201);
  });

  it('refuses 1e309 where a number is expected instead of acting on Infinity', async () => {
    const res = await post('/api/admin/replay', '{"fromOffset":1e309}');
    expect(res?.statusCode).toBe(400);
    expect(res?.json()).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('fromOffset') });
    // In a query string too, where the validator's coercion let -1e309 past `minimum` (500).
    for (const limit of ['-1e309', '1e309', 'Infinity']) {
      const q = await app.inject({ method: 'GET', url: `/api/sessions?limit=${limit}` });
      expect(q?.statusCode, limit).toBe(400);
      expect(q?.json()).toMatchObject({ code: 'INVALID_INPUT', message: 'querystring.limit: must be a finite number' });
    }
  });
});
