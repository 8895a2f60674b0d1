// An acknowledgement is admin state: it changes by one conditional write and nothing else
// undoes it. The sweep writes only the fields it owns, so an ack that lands between the
// sweep's read and its write survives; and an ack never writes back fields the sweep owns, so
// a resolution that lands between the ack's read and its write survives too. The interleaving
// is forced, not hoped for: a second Intelligence runs over the same store with a hook that
// fires right after it reads the alerts. The app is the test harness's (inject(), no port), on
// the embedded store and log and on Kafka and MongoDB.
import { afterAll, describe, expect, it } from 'vitest';
import type { Collection, Doc, DocumentStore } from '../../src/adapters/store/store.js';
import { ALERTS_COLLECTION, Intelligence } from '../../src/intelligence/intelligence.js';
import { DEFAULT_RULE_SETTINGS } from '../../src/intelligence/rules.js';
import { ReadModelSet } from '../../src/read-models/read-model-set.js';
import { createLogger } from '../../src/support/logger.js';
import { kafkaMongoEnv, startHarness, type Harness } from '../support/app-harness.js';
import { DEPLOYMENTS, type Deployment } from '../support/deployments.js';
import { messageBody } from '../support/platform.js';
import { eventually } from '../support/wait.js';

const ADMIN = 'admin-token-for-admin-state-0000';
// No intelligence role and no timed sweep: the only sweeps are the ones each test runs, where it says.
const ENV = { ADMIN_TOKEN: ADMIN, ALERT_SWEEP_SEC: '0', ROLES: 'api,processor,projector' };

interface Alert { id: string; ruleId: string; status: string; sessionId: string | null; origin: string; ackedAt: string | null; ackedBy: string | null; resolvedAt: string | null }

/** The store, with `hook` run once after the first read of the alerts collection that `armed()` allows. */
function hookedStore(store: DocumentStore, hook: () => Promise<void>, method: 'find' | 'findOne'): { store: DocumentStore; fired: () => boolean } {
  let fired = false;
  const wrap = <T extends Doc>(c: Collection<T>): Collection<T> => new Proxy(c, {
    get(target, prop) {
      if (prop === method) {
        return async (...args: unknown[]) => {
          const read = await (target[method] as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          if (!fired) {
            fired = true;
            await hook();
          }
          return read;
        };
      }
      const v = Reflect.get(target, prop) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const wrapped = new Proxy(store, {
    get(target, prop) {
      if (prop === 'collection') return <T extends Doc>(name: string) => (name === ALERTS_COLLECTION ? wrap(target.collection<T>(name)) : target.collection<T>(name));
      const v = Reflect.get(target, prop) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { store: wrapped, fired: () => fired };
}

function intelligenceOver(store: DocumentStore): Intelligence {
  return new Intelligence(store, new ReadModelSet(store), DEFAULT_RULE_SETTINGS, null, createLogger('silent'));
}

async function alerts(app: Harness, sessionId: string): Promise<Alert[]> {
  const res = await app.call<{ items: Alert[] }>('GET', `/api/alerts?status=all&sessionId=${encodeURIComponent(sessionId)}`);
  return res.body.items;
}

async function ack(app: Harness, id: string): Promise<{ status: number; body: Alert }> {
  const res = await app.call<Alert>('POST', `/api/alerts/${encodeURIComponent(id)}/ack`, { token: ADMIN });
  return { status: res.status, body: res.body };
}

describe.each(DEPLOYMENTS)('alert acknowledgements on %s', (kind: Deployment) => {
  const running: Harness[] = [];
  afterAll(async () => {
    await Promise.all(running.map((a) => a.stop()));
  });
  const start = async (): Promise<Harness> => {
    const app = await startHarness({ ...(kind === 'kafka+mongo' ? await kafkaMongoEnv() : {}), ...ENV });
    running.push(app);
    return app;
  };

  let fan = 0;
  /** A fan who has waited 10 minutes (past the 300 s threshold): `sla.fan-waiting`, critical, evaluated live. */
  async function waitingFan(app: Harness): Promise<{ sessionId: string; alertId: string; account: string; fanId: number }> {
    fan++;
    const account = 'acct_0000000000000000000000000000ac00';
    const fanId = 910_000 + fan;
    const body = messageBody({ accountId: account, fanId, messageId: 7_700_000 + fan, createdAt: new Date(Date.now() - 600_000).toISOString(), direction: 'received', text: 'hello?' });
    expect((await app.webhook(body, { key: `evt_ack_fan_${fan}` })).status).toBe(200);
    const sessionId = `${account}:${fanId}:1`;
    const live = await eventually(async () => (await alerts(app, sessionId)).find((a) => a.ruleId === 'sla.fan-waiting'), 60_000, 'the live alert');
    return { sessionId, alertId: live.id, account, fanId };
  }

  it('an ack landing between the sweep reading an alert that is only live and storing it survives the sweep', async () => {
    const app = await start();
    const { sessionId, alertId } = await waitingFan(app);
    expect((await alerts(app, sessionId)).find((a) => a.id === alertId)).toMatchObject({ origin: 'live', ackedAt: null });

    let acked: Alert | undefined;
    const hooked = hookedStore(app.store, async () => {
      const r = await ack(app, alertId);
      expect(r.status).toBe(200);
      acked = r.body;
    }, 'find');
    await intelligenceOver(hooked.store).sweep();
    expect(hooked.fired()).toBe(true);
    expect(acked).toMatchObject({ status: 'acked', ackedBy: 'ADMIN_TOKEN' });

    const after = (await alerts(app, sessionId)).find((a) => a.id === alertId);
    expect(after).toMatchObject({ origin: 'stored', status: 'acked', ackedBy: 'ADMIN_TOKEN', ackedAt: acked?.ackedAt });
  });

  it('an ack landing between the sweep reading a stored alert and refreshing it survives the sweep, and later sweeps', async () => {
    const app = await start();
    const { sessionId, alertId } = await waitingFan(app);
    await intelligenceOver(app.store).sweep();
    expect((await alerts(app, sessionId)).find((a) => a.id === alertId)).toMatchObject({ origin: 'stored', status: 'open', ackedAt: null });

    let acked: Alert | undefined;
    const hooked = hookedStore(app.store, async () => { acked = (await ack(app, alertId)).body; }, 'find');
    await intelligenceOver(hooked.store).sweep();
    expect(hooked.fired()).toBe(true);
    await intelligenceOver(app.store).sweep();

    const after = (await alerts(app, sessionId)).find((a) => a.id === alertId);
    expect(after).toMatchObject({ status: 'acked', ackedBy: 'ADMIN_TOKEN', ackedAt: acked?.ackedAt, resolvedAt: null });
    // Acknowledging again changes nothing.
    expect((await ack(app, alertId)).body).toMatchObject({ status: 'acked', ackedAt: acked?.ackedAt });
  });

  it('a resolution landing between the ack reading an alert and writing it survives the ack', async () => {
    const app = await start();
    const { sessionId, alertId, account, fanId } = await waitingFan(app);
    await intelligenceOver(app.store).sweep();
    // A chatter answers: the condition clears, and the next sweep resolves the alert.
    const reply = messageBody({ accountId: account, fanId, messageId: 7_800_000 + fanId, createdAt: new Date(Date.now() - 60_000).toISOString(), direction: 'sent', text: 'here!' });
    expect((await app.webhook(reply, { key: `evt_ack_reply_${fanId}` })).status).toBe(200);
    const plain = intelligenceOver(app.store);
    await eventually(async () => ((await plain.liveFindings(Date.now())).some((f) => f.sessionId === sessionId) ? undefined : true), 60_000, 'the reply to be projected');

    const hooked = hookedStore(app.store, () => plain.sweep(), 'findOne');
    const acked = await intelligenceOver(hooked.store).ack(alertId, 'admin', undefined);
    expect(hooked.fired()).toBe(true);
    expect(acked).toMatchObject({ ackedBy: 'admin' });

    const after = (await alerts(app, sessionId)).find((a) => a.id === alertId);
    expect(after).toMatchObject({ status: 'resolved', ackedBy: 'admin' });
    expect(after?.resolvedAt).not.toBeNull();
    expect(after?.ackedAt).not.toBeNull();
  });
});
