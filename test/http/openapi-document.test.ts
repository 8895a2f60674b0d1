// The OpenAPI document says what is true of every operation: a unique operationId and a tag,
// the security its access level needs (the webhook's signature, the connector's token, a key
// or ADMIN_TOKEN; reads may go without one while READ_AUTH is open), a server, and no query
// parameter marked required that has a default. Through inject().
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT_FILE, documentText, TYPES_FILE, typesText } from '../../scripts/openapi.js';
import { startHarness, type Harness } from '../support/app-harness.js';

interface Operation { responses?: Record<string, { $ref?: string; content?: Record<string, { schema?: object }> }>; requestBody?: { required?: boolean; content: Record<string, { schema: { required?: string[]; properties?: Record<string, unknown> } }> }; operationId?: string; tags?: string[]; security?: Record<string, string[]>[]; parameters?: { in: string; name: string; required?: boolean; schema?: { default?: unknown } }[] }
interface Doc { servers?: { url: string }[]; paths: Record<string, Record<string, Operation>>; components: { securitySchemes: Record<string, unknown> } }

const ADMIN_TOKEN = 'admin-token-for-openapi-doc-0000';

describe('the OpenAPI document', () => {
  let app: Harness;
  let doc: Doc;
  const ops = (): [string, Operation][] => Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([m, op]) => [`${m.toUpperCase()} ${path}`, op] as [string, Operation]));
  beforeAll(async () => {
    app = await startHarness({ ADMIN_TOKEN }, { driven: true });
    doc = (await app.call<Doc>('GET', '/docs/json')).body;
  });
  afterAll(async () => { await app?.stop(); });

  it('names every operation once, tags it and says how it is secured', () => {
    const all = ops();
    expect(all.length).toBeGreaterThan(40);
    const ids = all.map(([, op]) => op.operationId);
    expect(all.filter(([, op]) => !op.operationId).map(([k]) => k)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(all.filter(([, op]) => (op.tags ?? []).length === 0).map(([k]) => k)).toEqual([]);
    expect(all.filter(([, op]) => op.security === undefined).map(([k]) => k)).toEqual([]);
    const byKey = new Map(all);
    expect(byKey.get('GET /api/sessions/{id}/analysis')?.operationId).toBe('getSessionsByIdAnalysis');
    expect(byKey.get('POST /webhooks/platform')?.security).toEqual([{ webhookSignature: [] }, {}]);
    expect(byKey.get('POST /api/connector/ingest')?.security).toEqual([{ connectorToken: [] }]);
    expect(byKey.get('GET /api/sessions')?.security).toEqual([{ adminToken: [] }, {}]);
    expect(byKey.get('POST /api/admin/replay')?.security).toEqual([{ adminToken: [] }]);
    expect(byKey.get('GET /api/health')?.security).toEqual([]);
    for (const [, op] of all) for (const s of op.security ?? []) for (const name of Object.keys(s)) expect(doc.components.securitySchemes).toHaveProperty(name);
    expect(doc.servers?.length).toBeGreaterThan(0);
  });

  it('marks no query parameter with a default as required', () => {
    const lying = ops().flatMap(([k, op]) => (op.parameters ?? []).filter((p) => p.in === 'query' && p.required === true && p.schema?.default !== undefined).map((p) => `${k} ${p.name}`));
    expect(lying).toEqual([]);
    const limit = new Map(ops()).get('GET /api/sessions')?.parameters?.find((p) => p.name === 'limit');
    expect(limit).toMatchObject({ in: 'query', schema: { default: 50 } });
    expect(limit?.required).not.toBe(true);
  });

  it('declares request bodies as the routes take them', () => {
    const byKey = new Map(ops());
    // Takes no body: none in the document.
    expect(byKey.get('DELETE /api/admin/keys/{id}')?.requestBody).toBeUndefined();
    // Every field optional: the body may be left out.
    expect(byKey.get('POST /api/admin/purge-demo')?.requestBody?.required).toBe(false);
    expect(byKey.get('POST /api/admin/intelligence/run')?.requestBody?.required).toBe(false);
    // A required field: a required body.
    expect(byKey.get('POST /api/admin/close-session')?.requestBody?.required).not.toBe(false);
    // The webhook: the platform's envelope.
    const hook = byKey.get('POST /webhooks/platform')?.requestBody;
    expect(hook?.required).toBe(true);
    expect(hook?.content['application/json']?.schema.required).toEqual(['event', 'account_id', 'payload']);
  });

  it('declares a body schema for every success of every operation', () => {
    const bare = ops().flatMap(([k, op]) => Object.entries(op.responses ?? {})
      .filter(([status, r]) => status.startsWith('2') && Object.values(r.content ?? {}).every((c) => c.schema === undefined || Object.keys(c.schema).every((key) => key === 'description')))
      .map(([status]) => `${k} ${status}`));
    expect(bare).toEqual([]);
  });

  it('declares NDJSON answers as lines of text, each line\'s object beside them (what 3.2 calls itemSchema)', () => {
    const ndjson = ops().flatMap(([k, op]) => Object.values(op.responses ?? {}).flatMap((r) => {
      const c = r.content?.['application/x-ndjson'] as { schema?: { type?: string }; 'x-itemSchema'?: { type?: string; properties?: object } } | undefined;
      return c ? [[k, c] as const] : [];
    }));
    expect(ndjson.length).toBeGreaterThanOrEqual(5);
    // A validating client reading one object for the whole answer flags every export: it is text.
    for (const [k, c] of ndjson) {
      expect(c.schema?.type, k).toBe('string');
      expect(c['x-itemSchema']?.type, k).toBe('object');
      expect(Object.keys(c['x-itemSchema']?.properties ?? {}).length, k).toBeGreaterThan(0);
    }
  });

  it('refuses unknown query parameters on every route but the webhook, the probes and the metrics', async () => {
    const writes = await app.call<{ code: string; message: string }>('POST', '/api/admin/intelligence/run?bogus=1', { body: {}, token: ADMIN_TOKEN });
    expect(writes.status).toBe(400);
    expect(writes.body).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('bogus') });
    expect((await app.call('GET', '/go-live?bogus=1')).status).toBe(400);
    // Scrapers and probes decorate their URLs; they are answered as the ops server answers them.
    expect((await app.call('GET', '/metrics?scrape=1', { token: ADMIN_TOKEN })).status).toBe(200);
    expect((await app.call('GET', '/api/health/live?probe=1')).status).toBe(200);
    // What the platform or a proxy appends to the webhook's URL never costs a delivery.
    const hook = await app.call('POST', '/webhooks/platform?via=proxy', { headers: { 'x-ofapi-idempotency-key': 'evt_openapi_query' }, body: { event: 'messages.unknown', account_id: 'acct_1', payload: {} } });
    expect(hook.status, hook.text).toBeLessThan(300);
  });

  it('is what docs/openapi.json and the example client\'s types hold (run scripts/openapi.ts when it is not)', async () => {
    const document = await documentText();
    const stale = [[DOCUMENT_FILE, document], [TYPES_FILE, await typesText(document)]]
      .filter(([file, text]) => readFileSync(file as string, 'utf8') !== text).map(([file]) => file);
    expect(stale, 'stale: run `node --import tsx scripts/openapi.ts`').toEqual([]);
  });
});

describe('the OpenAPI document of a locked-down deployment', () => {
  it('asks every read for a key and every webhook for its signature', async () => {
    const app = await startHarness({ READ_AUTH: 'required', PLATFORMAPI_WEBHOOK_SECRET: 'whsec-openapi-document-test-0000' }, { driven: true });
    try {
      const doc = (await app.call<Doc>('GET', '/docs/json', { token: undefined })).body;
      expect(doc.paths['/api/sessions']?.get?.security).toEqual([{ adminToken: [] }]);
      expect(doc.paths['/webhooks/platform']?.post?.security).toEqual([{ webhookSignature: [] }]);
      // The floor answers anyone; a key widens it.
      expect(doc.paths['/api/floor']?.get?.security).toEqual([{ adminToken: [] }, {}]);
      expect(JSON.stringify(doc.components.securitySchemes)).toContain('READ_AUTH=required');
    } finally {
      await app.stop();
    }
  });
});
