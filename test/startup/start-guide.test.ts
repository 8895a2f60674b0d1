// What a newcomer reads when the service is up: where it listens, the pages, and the demo
// command only where there is nothing to see and the demo route would take it.
import { describe, expect, it } from 'vitest';
import { startGuide, type StartFacts } from '../../src/support/start-guide.js';
import { resolveLogFormat } from '../../src/support/logger.js';

const facts: StartFacts = {
  url: 'http://127.0.0.1:3000', opsUrl: null, host: '127.0.0.1', roles: ['api', 'processor'],
  adminTokenSet: false, storeEmpty: true, demoRefused: null,
};

describe('the start guide', () => {
  it('names the loopback bind, each page by its URL, and how to seed the demo without a token yet', () => {
    const g = startGuide(facts);
    expect(g.listening).toMatch(/^convops started: listening at http:\/\/127\.0\.0\.1:3000, this machine only \(HOST=0\.0\.0\.0/);
    for (const path of ['/floor', '/console', '/docs', '/go-live']) expect(g.next.join('\n')).toContain(`http://127.0.0.1:3000${path} `);
    expect(g.next.at(-1)).toMatch(/start again with ADMIN_TOKEN set .*curl -X POST http:\/\/127\.0\.0\.1:3000\/api\/admin\/seed-demo/);
    expect(g.fields).toMatchObject({ floor: 'http://127.0.0.1:3000/floor', demo: expect.stringContaining('/api/admin/seed-demo') });
  });

  it('gives the seed command alone once a token is set, and no demo once something is stored or where the route refuses it', () => {
    expect(startGuide({ ...facts, adminTokenSet: true }).next.at(-1)).toMatch(/^Nothing is stored yet\. Load the demo .*: curl -X POST/);
    for (const g of [startGuide({ ...facts, storeEmpty: false }), startGuide({ ...facts, demoRefused: 'refused in production' })]) {
      expect(g.next.join('\n')).not.toContain('seed-demo');
      expect(g.fields.demo).toBeUndefined();
      expect(g.next).toHaveLength(4);
    }
  });

  it('says when every interface is open, and what a worker without the API serves', () => {
    expect(startGuide({ ...facts, host: '0.0.0.0' }).listening).toContain('every address of this machine (HOST=0.0.0.0)');
    const worker = startGuide({ ...facts, url: null, opsUrl: 'http://127.0.0.1:9464', roles: ['processor'] });
    expect(worker.listening).toBe('convops started (processor): metrics and probes at http://127.0.0.1:9464, this machine only (HOST=0.0.0.0 opens it to others: read "Before going live" in docs/operations.md first)');
    expect(worker.next).toEqual([]);
  });

  it('writes readable lines to a terminal and JSON to anything else unless told', () => {
    expect(resolveLogFormat('auto', true)).toBe('pretty');
    expect(resolveLogFormat('auto', false)).toBe('json');
    expect(resolveLogFormat('json', true)).toBe('json');
    expect(resolveLogFormat('pretty', false)).toBe('pretty');
  });
});
