// The Kafka broker, then the Mongo-wire server, stopped and restarted in the middle of
// sustained ingest. While the log is down ingest answers 503 (the platform retries) and never
// 2xx; while the store is down the log still takes webhooks, reads answer 503, and health
// names what is down. Afterwards the service has recovered by itself: every delivery is in
// the read models exactly once (the canonical hash equals a clean run's).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { startKafka, startMongo, type RestartableServer } from '../infra/servers.js';
import { expectSameAsReference, referenceOf } from '../support/reference-check.js';
import type { Reference } from '../support/reference-model.js';
import { deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { faultDeliveries } from '../support/fault-input.js';
import { postWebhook } from '../support/platform.js';
import { deliverAll } from '../support/sender.js';
import { eventually } from '../support/wait.js';
import { kafkaBrokers } from '../support/test-servers.js';

// Enough that the outage falls mid-ingest with chats in every state; the outage, not the volume, is under test.
const { deliveries } = faultDeliveries(900, 23);
const DOWN_MS = 5000;

interface Health { status: string; components: { log: { ok: boolean }; store: { ok: boolean } } }

async function health(url: string): Promise<{ status: number; body: Health }> {
  const res = await fetch(`${url}/api/health`);
  return { status: res.status, body: (await res.json()) as Health };
}

let reference: Reference;
const servers: RestartableServer[] = [];
const apps: RunningApp[] = [];
beforeAll(() => { reference = referenceOf(deliveries); });
afterAll(async () => {
  for (const a of apps) await a.stop().catch(() => undefined);
  for (const s of servers) await s.stop();
  removeDataDirs();
});

/** Every figure equals the reference model's reading of the deliveries. */
const expectReferenceFigures = (app: RunningApp, env: Record<string, string>): Promise<void> => expectSameAsReference(reference, app.url ?? '', app.store, env, 240_000, app.log);

/** Sends every delivery (paced), taking `server` down for a while once a third are in; `whileDown` runs during the outage. */
async function ingestAcrossOutage(app: RunningApp, server: RestartableServer, whileDown: () => Promise<void>) {
  let outage: Promise<void> | undefined;
  const stats = await deliverAll(() => app.url ?? '', deliveries, {
    onAccepted: async (n) => {
      if (n === Math.floor(deliveries.length / 3)) {
        await server.halt();
        outage = (async () => {
          const downSince = Date.now();
          await whileDown();
          await new Promise((r) => setTimeout(r, Math.max(0, DOWN_MS - (Date.now() - downSince))));
          await server.resume();
        })();
      }
      await new Promise((r) => setTimeout(r, 5));
    },
  });
  await outage;
  return stats;
}

describe('infrastructure outages mid-ingest', () => {
  it('the Kafka broker stops and restarts: 503 while it is down, health says the log is down, nothing lost or doubled', async () => {
    const kafka = await startKafka();
    servers.push(kafka);
    const env = { ...await deploymentEnv('kafka+mongo', { APPEND_TIMEOUT_MS: '2000', KAFKA_SESSION_TIMEOUT_MS: '6000' }), KAFKA_BROKERS: kafka.url };
    const app = await startWithEnv(env);
    apps.push(app);
    const url = app.url ?? '';
    let probe: { webhook: number; health: { status: number; body: Health } } | undefined;
    const stats = await ingestAcrossOutage(app, kafka, async () => {
      const extra = faultDeliveries(5, 99).deliveries[0];
      const webhook = (await postWebhook(url, extra?.body ?? '{}', { key: 'evt_probe_during_outage' })).status;
      probe = { webhook, health: await health(url) };
    });
    expect(probe?.webhook).toBe(503);
    expect(probe?.health.status).toBe(503);
    expect(probe?.health.body.components.log.ok).toBe(false);
    expect(probe?.health.body.components.store.ok).toBe(true);
    expect(stats.accepted).toBe(deliveries.length);
    // The sender was refused during the outage and delivered again.
    expect(stats.statuses.get(503) ?? 0).toBeGreaterThan(0);
    await eventually(async () => ((await health(url)).status === 200 ? true : undefined), 60_000, 'health to recover');
    await expectReferenceFigures(app, env);
  }, 600_000);

  it('the Mongo-wire server stops and restarts: ingest keeps taking webhooks into the log, reads answer 503, nothing lost or doubled', async () => {
    const mongo = await startMongo(512, true);
    servers.push(mongo);
    const env = { ...await deploymentEnv('kafka+mongo', { KAFKA_SESSION_TIMEOUT_MS: '6000' }), KAFKA_BROKERS: await kafkaBrokers(), MONGO_URL: mongo.url };
    const app = await startWithEnv(env);
    apps.push(app);
    const url = app.url ?? '';
    let probe: { read: number; readBody: Record<string, unknown>; health: { status: number; body: Health } } | undefined;
    const stats = await ingestAcrossOutage(app, mongo, async () => {
      const res = await fetch(`${url}/api/sessions`);
      probe = { read: res.status, readBody: (await res.json()) as Record<string, unknown>, health: await health(url) };
    });
    expect(probe?.read).toBe(503);
    expect(probe?.readBody.message).toMatch(/store/);
    expect(probe?.health.status).toBe(503);
    expect(probe?.health.body.components.store.ok).toBe(false);
    expect(probe?.health.body.components.log.ok).toBe(true);
    expect(stats.accepted).toBe(deliveries.length);
    // The log was up, so the platform never had to retry.
    expect(stats.retries).toBe(0);
    await eventually(async () => ((await health(url)).status === 200 ? true : undefined), 60_000, 'health to recover');
    await expectReferenceFigures(app, env);
  }, 600_000);
});
