// The OpenAPI document says what is true of every operation: a unique operationId and a tag,
// the security its access level needs (the webhook's signature, the connector's token, a key
// or ADMIN_TOKEN; reads may go without one while READ_AUTH is open), a server, and no query
// parameter marked required that has a default. Through inject().
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/app-harness.js';

interface Operation { requestBody?: { required?: boolean; content: Record<string, { schema: { required?: string[]; properties?: Record<string, unknown> } }> }; operationId?: string; tags?: string[]; security?: Record<string, string[]>[]; parameters?: { in: string; name: string; required?: boolean; schema?: { default?: unknown } }[] }
interface Doc { servers?: { url: string }[]; paths: Record<string, Record<string, Operation>>; components: { securitySchemes: Record<string, unknown> } }

describe('the OpenAPI document', () => {
  let app: Harness;
  let doc: Doc;
  const ops = (): [string, Operation][] => Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([m, op]) => [`${m.toUpperCase()} ${path}`, op] as [string, Operation]));
  beforeAll(async () => {
    app = await startHarness();
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
});
