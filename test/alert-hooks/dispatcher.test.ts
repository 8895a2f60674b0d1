// The dispatcher over both real stores (embedded, and the Mongo-wire server), sending to a
// receiver in the test: transitions written by the real alert code become signed deliveries
// (checked with the standardwebhooks package, an implementation not ours), retried with the
// same webhook-id and growing gaps, given up after the window (which disables the hook and
// raises an alert), and never sent to an address the guard refuses.
import { rmSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import { MongoStore } from '../../src/adapters/store/mongo-store.js';
import type { DocumentStore } from '../../src/adapters/store/store.js';
import { AlertHooks } from '../../src/alert-hooks/alert-hooks.js';
import { AlertHookDispatcher, type DispatcherOptions } from '../../src/alert-hooks/dispatcher.js';
import { hookAlertId, openHookAlert } from '../../src/alert-hooks/hook-alert.js';
import type { HookDoc } from '../../src/alert-hooks/hook-docs.js';
import { ALERTS_COLLECTION, HOOK_OUTBOX, HOOK_PENDING, type AlertDoc, type OutboxEntry } from '../../src/pipeline/alert-doc.js';
import { reconcileSetAsideAlert, SET_ASIDE_ALERT_ID } from '../../src/pipeline/set-aside-alert.js';
import { bodyPrefix, SET_ASIDE_COLLECTION, setAsideWrite } from '../../src/pipeline/set-aside.js';
import { createLogger } from '../../src/support/logger.js';
import { startReceiver, type Receiver } from '../support/hook-receiver.js';
import { eventually, uniqueName } from '../support/wait.js';
import { mongoUrl, withServers } from '../support/test-servers.js';
import { tempDir } from '../support/temp-dirs.js';

const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

const STORES: readonly (readonly [string, () => Promise<DocumentStore>])[] = [
  ['embedded', async () => {
    const dir = tempDir('convops-hooks-');
    dirs.push(dir);
    return new EmbeddedStore(dir);
  }],
  ...withServers([['mongodb wire', async () => MongoStore.connect(await mongoUrl(), uniqueName('convops_hooks'))] as const]),
];

/** Opens the pipeline's set-aside alert through the real code: a record set aside, then reconciled. */
async function openSetAsideAlert(store: DocumentStore, now = Date.now()): Promise<void> {
  await store.bulkWriteMany([setAsideWrite([{
    _id: `inbound:0:${now}`, stage: 'step', topic: 'inbound', partition: 0, offset: now, chatKey: 'acct_x:1', event: 'messages.received',
    error: 'Error: boom', receivedAt: null, setAsideAt: now, body: bodyPrefix('{}'),
  }])]);
  expect(await reconcileSetAsideAlert(store, now)).toBe('open');
}

async function resolveSetAsideAlert(store: DocumentStore, now = Date.now()): Promise<void> {
  await store.collection(SET_ASIDE_COLLECTION).deleteMany({});
  expect(await reconcileSetAsideAlert(store, now)).toBe('resolved');
}

describe.each(STORES)('alert hook dispatcher on %s', (_name, open) => {
  let store: DocumentStore;
  let receiver: Receiver;
  let dispatcher: AlertHookDispatcher | null = null;
  const hooks = () => new AlertHooks(store);

  beforeEach(async () => {
    store = await open();
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await dispatcher?.stop();
    dispatcher = null;
    await receiver.close();
    await store.close();
  });

  const run = async (options: Partial<DispatcherOptions> = {}): Promise<AlertHookDispatcher> => {
    dispatcher = new AlertHookDispatcher(store, { allowPrivate: true, pollMs: 50, ...options }, createLogger('silent'));
    await dispatcher.start();
    return dispatcher;
  };
  const register = (url = receiver.url, more: Partial<Parameters<AlertHooks['create']>[0]> = {}): Promise<HookDoc> =>
    hooks().create({ url, events: ['opened', 'acked', 'resolved'], accountIds: null, format: 'standard', createdBy: 'test', ...more });

  it('sends each transition once, signed so that an independent verifier accepts it', async () => {
    const hook = await register();
    await run();
    await openSetAsideAlert(store);
    await store.collection<AlertDoc>(ALERTS_COLLECTION).updateOne({ _id: SET_ASIDE_ALERT_ID }, { $set: { status: 'acked' } });
    await resolveSetAsideAlert(store);
    await eventually(() => expect(receiver.received).toHaveLength(2));
    const verifier = new Webhook(hook.secret);
    const events = receiver.received.map((r) => verifier.verify(r.body, r.headers as Record<string, string>) as { type: string; data: { id: string; eventId: string } });
    // Sent concurrently, so they may arrive in either order (receivers order by timestamp).
    expect(events.map((e) => e.type).sort()).toEqual(['alert.opened', 'alert.resolved']);
    expect(events.every((e) => e.data.id === SET_ASIDE_ALERT_ID)).toBe(true);
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual(events.map((e) => e.data.eventId));
    // A tampered body or another secret fails the same verifier: the signature covers both.
    const [first] = receiver.received;
    expect(() => verifier.verify(`${first?.body} `, first?.headers as Record<string, string>)).toThrow();
    expect(() => new Webhook('whsec_' + Buffer.alloc(32, 7).toString('base64')).verify(first?.body ?? '', first?.headers as Record<string, string>)).toThrow();
    // The receiver has answered; the outcome is recorded a moment later.
    await eventually(async () => expect((await hooks().recentDeliveries(hook._id, 10)).map((d) => [d.event, d.status, d.attempts]).sort()).toEqual([['opened', 'delivered', 1], ['resolved', 'delivered', 1]]));
    // The outbox is drained and the alert no longer pending.
    const alert = await store.collection<AlertDoc>(ALERTS_COLLECTION).findOne({ _id: SET_ASIDE_ALERT_ID });
    expect(alert?.[HOOK_OUTBOX]).toEqual([]);
    expect(alert?.[HOOK_PENDING]).toBe(false);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received).toHaveLength(2);
  });

  it('fans a transition out once even when its removal from the alert was lost (a restart between the two)', async () => {
    const hook = await register();
    await openSetAsideAlert(store);
    const alerts = store.collection<AlertDoc>(ALERTS_COLLECTION);
    const [entry] = ((await alerts.findOne({ _id: SET_ASIDE_ALERT_ID }))?.[HOOK_OUTBOX] ?? []) as OutboxEntry[];
    const d = new AlertHookDispatcher(store, { allowPrivate: true }, createLogger('silent'));
    expect(await d.fanOut()).toEqual({ alerts: 1, deliveries: 1 });
    // As if the process stopped after inserting the delivery and before removing the entry.
    await alerts.updateOne({ _id: SET_ASIDE_ALERT_ID }, { $push: { [HOOK_OUTBOX]: entry }, $set: { [HOOK_PENDING]: true } });
    await d.fanOut();
    expect(await hooks().deliveries.countDocuments({ hookId: hook._id })).toBe(1);
    await d.sendDue();
    await d.sendDue();
    await d.settled();
    expect(receiver.received).toHaveLength(1);
  });

  it('retries a receiver that answers 500 with the same webhook-id and growing gaps, until it takes it', async () => {
    receiver.behave((n) => ({ status: n < 4 ? 500 : 200 }));
    const hook = await register();
    await run({ policy: { baseMs: 200, maxDelayMs: 60_000, windowMs: 60_000 } });
    await openSetAsideAlert(store);
    await eventually(() => expect(receiver.received).toHaveLength(5), 15_000);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    const gaps = receiver.received.slice(1).map((r, i) => r.at - (receiver.received[i]?.at ?? 0));
    // Equal jitter: the gap after attempt n is at least base·2^(n-1)/2 and at most base·2^(n-1),
    // plus up to a poll (50 ms here) and a round; so the fourth is over twice the first.
    gaps.forEach((g, i) => expect(g).toBeGreaterThanOrEqual(200 * 2 ** i / 2 - 5));
    gaps.forEach((g, i) => expect(g).toBeLessThanOrEqual(200 * 2 ** i + 250));
    expect(gaps[3]).toBeGreaterThan(2 * (gaps[0] ?? 0));
    // The receiver has answered; the outcome is recorded with the round's others a moment later.
    await eventually(async () => expect((await hooks().recentDeliveries(hook._id, 1))[0]).toMatchObject({ status: 'delivered', attempts: 5, lastHttpStatus: 200, lastError: null }));
    // The counters follow the outcomes' write, which another reader can see before the dispatcher's await returns.
    await eventually(() => expect(dispatcher?.counters).toMatchObject({ delivered: 1, retried: 4, failed: 0 }));
  });

  it('gives up after the retry window, disables the hook, raises an alert, and the other hooks hear of it', async () => {
    receiver.behave(() => ({ status: 503 }));
    const failing = await register();
    const witness = await startReceiver();
    try {
      await register(witness.url, { events: ['opened'] });
      await run({ policy: { baseMs: 50, maxDelayMs: 200, windowMs: 600 } });
      await openSetAsideAlert(store);
      await eventually(async () => expect((await hooks().get(failing._id))?.status).toBe('disabled'), 10_000);
      const hook = await hooks().get(failing._id);
      expect(hook?.disabledBecause).toMatch(/kept failing .*answered 503/);
      const alert = await store.collection<AlertDoc>(ALERTS_COLLECTION).findOne({ _id: hookAlertId(failing._id) });
      expect(alert).toMatchObject({ status: 'open', severity: 'warning', accountId: null });
      expect(receiver.received.length).toBeGreaterThanOrEqual(3);
      // The delivery that kept failing failed for good; any made for the hook since (the hook's
      // own alert, fanned out while it was being disabled) is dropped, never sent.
      await eventually(async () => {
        const deliveries = await hooks().recentDeliveries(failing._id, 10);
        expect(deliveries.filter((d) => d.status === 'failed')).toMatchObject([{ lastHttpStatus: 503 }]);
        expect(deliveries.filter((d) => d.status !== 'failed').map((d) => d.status)).toEqual(deliveries.filter((d) => d.status !== 'failed').map(() => 'dropped'));
        return true;
      });
      // The witness got the set-aside alert and then the disabled hook's alert.
      await eventually(() => expect(witness.received.map((r) => (JSON.parse(r.body) as { data: { id: string } }).data.id)).toEqual([SET_ASIDE_ALERT_ID, hookAlertId(failing._id)]));
      // A disabled hook gets nothing more.
      const before = receiver.received.length;
      await resolveSetAsideAlert(store);
      await new Promise((r) => setTimeout(r, 400));
      expect(receiver.received).toHaveLength(before);
    } finally {
      await witness.close();
    }
  });

  it('does not disable a hook for one delivery it always refuses while its other deliveries succeed', async () => {
    let refusedId: string | undefined;
    receiver.behave((n, r) => {
      refusedId ??= String(r.headers['webhook-id']);
      return { status: r.headers['webhook-id'] === refusedId ? 400 : 204 };
    });
    const hook = await register();
    await run({ policy: { baseMs: 50, maxDelayMs: 100, windowMs: 600 } });
    await openSetAsideAlert(store);
    await eventually(() => expect(receiver.received.length).toBeGreaterThan(0));
    await resolveSetAsideAlert(store);
    await eventually(async () => expect((await hooks().recentDeliveries(hook._id, 5)).map((d) => d.status).sort()).toEqual(['delivered', 'failed']), 10_000);
    expect((await hooks().get(hook._id))?.status).toBe('active');
    expect(await store.collection<AlertDoc>(ALERTS_COLLECTION).findOne({ _id: hookAlertId(hook._id) })).toBeNull();
  });

  it('two dispatchers over one store send each delivery once', async () => {
    await register();
    await run({ pollMs: 10 });
    const other = new AlertHookDispatcher(store, { allowPrivate: true, pollMs: 10 }, createLogger('silent'));
    await other.start();
    try {
      const now = Date.now();
      await Promise.all(Array.from({ length: 40 }, (_, i) => openHookAlert(store, `hook_two${String(i).padStart(12, '0')}`, 'http://x/', 'test', now)));
      await eventually(() => expect(receiver.received.length).toBeGreaterThanOrEqual(40));
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.received).toHaveLength(40);
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(40);
      expect((dispatcher?.counters.delivered ?? 0) + other.counters.delivered).toBe(40);
    } finally {
      await other.stop();
    }
  });

  it('refuses a name that resolves to a loopback address at send time unless private destinations are allowed, and connects to the address it checked', async () => {
    const host = 'hooks.convops-test.invalid';
    const url = `http://${host}:${receiver.port}/hook`;
    const resolve = async () => [{ address: '127.0.0.1', family: 4 as const }];
    const hook = await register(url);
    await run({ allowPrivate: false, resolve });
    await openSetAsideAlert(store);
    await eventually(async () => expect((await hooks().get(hook._id))?.status).toBe('disabled'));
    expect(receiver.received).toHaveLength(0);
    expect((await hooks().recentDeliveries(hook._id, 1))[0]).toMatchObject({ status: 'failed', attempts: 1, lastHttpStatus: null, lastError: expect.stringMatching(/127\.0\.0\.1 is a loopback address: refused/) });
    await dispatcher?.stop();

    // Allowed: the name (which no DNS knows) reaches the receiver through the checked address.
    const allowed = await register(url);
    await run({ allowPrivate: true, resolve });
    await resolveSetAsideAlert(store);
    await eventually(() => expect(receiver.received).toHaveLength(1));
    expect(receiver.received[0]?.headers.host).toBe(`${host}:${receiver.port}`);
    await eventually(async () => expect((await hooks().recentDeliveries(allowed._id, 1))[0]).toMatchObject({ status: 'delivered' }));
  });

  it('does not follow a redirect, and gives up an attempt that gets no answer in time', async () => {
    const elsewhere = await startReceiver();
    try {
      receiver.behave((n) => (n === 0 ? { status: 302, headers: { location: elsewhere.url } } : 'hang'));
      const hook = await register();
      await run({ timeoutMs: 300, policy: { baseMs: 50, maxDelayMs: 50, windowMs: 60_000 } });
      await openSetAsideAlert(store);
      await eventually(async () => expect((await hooks().recentDeliveries(hook._id, 1))[0]?.attempts).toBeGreaterThanOrEqual(2), 5000);
      expect(elsewhere.received).toHaveLength(0);
      const [d] = await hooks().recentDeliveries(hook._id, 1);
      expect(d).toMatchObject({ status: 'pending', lastHttpStatus: null, lastError: 'no full answer within 300 ms' });
    } finally {
      await elsewhere.close();
    }
  });

  it('lets a receiver that hangs hold up only its own deliveries: another hook\'s transitions and retries go out on time', async () => {
    const slow = await startReceiver(() => 'hang');
    try {
      // The fast receiver refuses its first delivery once, so a retry is due about 100 ms later.
      receiver.behave((n) => ({ status: n === 0 ? 503 : 204 }));
      const stuck = await register(slow.url);
      const fast = await register();
      await run({ timeoutMs: 20_000, policy: { baseMs: 200, maxDelayMs: 200, windowMs: 60_000 } });
      await openSetAsideAlert(store);
      await eventually(() => expect(slow.received).toHaveLength(1));
      // The opened transition's retry and the resolved transition reach the fast receiver while
      // the slow one still has its attempts open: told by their state, not by a stopwatch (a
      // round that waited for its attempts would finish the slow ones first, 20 s on).
      await eventually(() => expect(receiver.received).toHaveLength(2));
      await resolveSetAsideAlert(store);
      await eventually(() => expect(receiver.received).toHaveLength(3));
      // Both transitions went to the slow receiver too, where they still hang.
      await eventually(() => expect(slow.received).toHaveLength(2));
      await eventually(async () => expect((await hooks().recentDeliveries(fast._id, 10)).map((d) => d.status)).toEqual(['delivered', 'delivered']));
      expect((await hooks().recentDeliveries(stuck._id, 10)).map((d) => [d.status, d.attempts])).toEqual([['pending', 0], ['pending', 0]]);
    } finally {
      // Its hanging answers end, so the dispatcher's stop does not wait out the deadline.
      await slow.close();
    }
  });

  it('does not take over a claim that holds when a read answers the document as that claim left it', async () => {
    // mongo-java-server matches a query, then answers the stored document, which a claim landing
    // in between has already changed in place: a read for due deliveries can answer one another
    // dispatcher has just claimed. Claiming on the value read would then match, and both would
    // send it. Here a store whose due-read ignores the due time answers it that way every time.
    const hook = await register();
    const a = new AlertHookDispatcher(store, { allowPrivate: true }, createLogger('silent'));
    await openSetAsideAlert(store);
    expect((await a.fanOut()).deliveries).toBe(1);
    const deliveries = hooks().deliveries;
    const [d] = await deliveries.find({ hookId: hook._id });
    // Another dispatcher's claim: due again only when its lease ends, a minute on.
    await deliveries.updateOne({ _id: d?._id }, { $set: { nextAttemptAt: Date.now() + 60_000, claim: 'theirs' } });
    const answersLate = new Proxy(store, {
      get(target, prop, recv) {
        if (prop !== 'collection') return Reflect.get(target, prop, recv) as unknown;
        return (name: string) => {
          const c = target.collection(name);
          return new Proxy(c, {
            get(ct, p, r) {
              if (p !== 'find') return Reflect.get(ct, p, r) as unknown;
              return (filter: Record<string, unknown>, options?: unknown) => {
                const { nextAttemptAt: _due, ...rest } = filter;
                return ct.find(rest as never, options as never);
              };
            },
          });
        };
      },
    });
    const b = new AlertHookDispatcher(answersLate, { allowPrivate: true }, createLogger('silent'));
    expect(await b.sendDue()).toBe(0);
    await b.settled();
    expect(receiver.received).toHaveLength(0);
    expect((await deliveries.find({ hookId: hook._id }))[0]).toMatchObject({ claim: 'theirs', attempts: 0, status: 'pending' });
  });

  it('counts a resolver that never answers against the same timeout', async () => {
    const hook = await register('http://hangs.convops-test.invalid/hook');
    await run({ timeoutMs: 200, resolve: () => new Promise(() => undefined), policy: { baseMs: 10_000, maxDelayMs: 10_000, windowMs: 60_000 } });
    await openSetAsideAlert(store);
    await eventually(async () => expect((await hooks().recentDeliveries(hook._id, 1))[0]).toMatchObject({ status: 'pending', attempts: 1, lastError: 'DNS: no address within 200 ms' }), 5000);
  });

  it('sends only the events and accounts a hook asked for', async () => {
    const opened = await register(receiver.url, { events: ['opened'] });
    await register(receiver.url, { events: ['resolved'], accountIds: ['acct_other'] });
    await run();
    await openSetAsideAlert(store);
    await resolveSetAsideAlert(store);
    await eventually(() => expect(receiver.received).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received).toHaveLength(1);
    expect(JSON.parse(receiver.received[0]?.body ?? '{}')).toMatchObject({ type: 'alert.opened' });
    expect(await hooks().deliveries.countDocuments({})).toBe(1);
    expect((await hooks().recentDeliveries(opened._id, 5))).toHaveLength(1);
  });
});
