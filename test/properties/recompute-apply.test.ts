// Recompute-then-apply is a fresh start under the new definitions (issue 55): generated
// conversations (redeliveries, connector copies, arrivals up to the lateness late, a closing
// tick) go into a service under a 30-minute session gap; a preview under another gap is applied;
// its read models are, document for document, those of a second service that took the same
// records under that gap from the start (the generation's `~g1` id tag aside). And every session
// of the applied generation is explained, agreeing. A failure prints fast-check's seed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readModelDocs } from '../support/read-models.js';
import { conversationArb } from '../support/conversations.js';
import { appendsOf } from '../support/run-chats.js';
import { propertyRuns } from '../support/property-runs.js';
import { startHarness, type Harness } from '../support/app-harness.js';
import type { AppendRecord } from '../../src/adapters/log/log.js';

const IDLE_SEC = 1800;
const LATE_SEC = 300;
const ADMIN = 'admin-token-for-recompute-property';

/** The tag out of plain ids and of the base64url-encoded session ids that key the wait buckets (`k<id>`). */
function untagged(json: string): string {
  return json.replaceAll('~g1', '').replace(/"k([A-Za-z0-9_-]{8,})"/g, (_, b64: string) => `"k${Buffer.from(Buffer.from(b64, 'base64url').toString('utf8').replaceAll('~g1', '')).toString('base64url')}"`);
}

/** Every read model's documents as canonical lines, the generation's id tag taken out and sorted again. */
async function docsOf(h: Harness): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [model, docs] of Object.entries(await readModelDocs(h.store))) {
    out[model] = docs.map((d) => untagged(JSON.stringify(d, (k, v: unknown) => (k === 'appliedOffset' || k === 'appliedIds' || k === '_rev' ? undefined : v)))).sort();
  }
  return out;
}

async function fed(env: Record<string, string>, records: readonly AppendRecord[]): Promise<Harness> {
  const h = await startHarness({ ADMIN_TOKEN: ADMIN, ALLOWED_LATENESS_SEC: String(LATE_SEC), ...env });
  await h.log.append(h.config.inboundTopic ?? `${h.config.topicPrefix}inbound`, records);
  await h.settled();
  return h;
}

describe('recompute under new definitions, then apply', () => {
  it('gives the read models a fresh pipeline under those definitions gives, and explains every session', async () => {
    await fc.assert(fc.asyncProperty(
      conversationArb({ idleMs: IDLE_SEC * 1000, lateMs: LATE_SEC * 1000, withCloses: false, maxSteps: 30 }),
      fc.constantFrom(600, 900, 3600),
      async (c, newIdle) => {
        const records = appendsOf([...c.arrivals, { kind: 'tick', at: c.maxAt + 3_600_000 }], 4);
        const recomputed = await fed({ SESSION_IDLE_SEC: String(IDLE_SEC) }, records);
        const fresh = await fed({ SESSION_IDLE_SEC: String(newIdle) }, records);
        try {
          const call = <T>(method: string, url: string, body?: unknown) => recomputed.call<T>(method, url, { token: ADMIN, ...(body !== undefined ? { body } : {}) });
          expect((await call('POST', '/api/admin/definitions/generations', { sessionIdleSec: newIdle })).status).toBe(202);
          for (let i = 0; ; i++) {
            if ((await call<{ status: string }>('GET', '/api/admin/definitions/generations/1')).body.status === 'ready') break;
            if (i > 300) throw new Error('the preview never caught up');
            await new Promise((r) => setTimeout(r, 100));
          }
          const applied = await call<{ status: string }>('POST', '/api/admin/definitions/generations/1/apply');
          expect(applied.status).toBe(200);
          await recomputed.settled();
          expect(await docsOf(recomputed)).toEqual(await docsOf(fresh));
          const sessions = (await call<{ items: { id: string }[] }>('GET', '/api/sessions?limit=500')).body.items;
          for (const s of sessions) {
            const e = await call<{ agrees: boolean; differences: unknown[] }>('GET', `/api/sessions/${encodeURIComponent(s.id)}/explain`);
            expect(e.body.differences, s.id).toEqual([]);
          }
        } finally {
          await Promise.all([recomputed.stop(), fresh.stop()]);
        }
      },
    ), propertyRuns(4));
  }, 300_000);
});
