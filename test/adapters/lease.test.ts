// The lease the replay lock, backfill claims and the report-bucket build marker share: one
// holder at a time across processes (owners racing through separate store connections), an
// expired holder taken over, and an owner that lost the lease unable to renew or release it.
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import { MongoStore } from '../../src/adapters/store/mongo-store.js';
import type { DocumentStore } from '../../src/adapters/store/store.js';
import { Lease, type LeaseOptions } from '../../src/adapters/store/lease.js';
import { uniqueName } from '../support/wait.js';
import { mongoUrl, withServers } from '../support/test-servers.js';
import { tempDir } from '../support/temp-dirs.js';

const STALE_MS = 10_000;

describe.each([
  ['embedded', () => {
    const dir = tempDir('convops-lease-');
    return async () => new EmbeddedStore(dir);
  }] as const,
  ...withServers([['mongodb wire', () => {
    const db = uniqueName('convops_lease');
    return async () => MongoStore.connect(await mongoUrl(), db);
  }] as const]),
])('a lease on the %s store', (_name, deployment) => {
  const open = deployment();
  const stores: DocumentStore[] = [];
  afterAll(async () => { await Promise.all(stores.map((s) => s.close())); });
  /** Two connections to one store: what two processes sharing it see. */
  const twoProcesses = async (): Promise<[DocumentStore, DocumentStore]> => {
    const a = await open();
    stores.push(a);
    // The embedded store is one environment per folder and process: both "processes" share it.
    const b = a.kind === 'embedded' ? a : await open();
    if (b !== a) stores.push(b);
    return [a, b];
  };
  let time = 1_000_000;
  const clock = () => time;
  const lease = (store: DocumentStore, options: Partial<LeaseOptions> & { id: string }) => new Lease(store, { collection: 'leases', staleMs: STALE_MS, clock, create: { kind: 'test' }, ...options });

  it('of owners racing for a lease nobody holds, exactly one acquires it', async () => {
    const [a, b] = await twoProcesses();
    const id = uniqueName('race');
    const owners = Array.from({ length: 6 }, (_, i) => `owner-${i}`);
    const won = await Promise.all(owners.map((o, i) => lease(i % 2 === 0 ? a : b, { id }).acquire(o)));
    expect(won.filter(Boolean)).toHaveLength(1);
    const winner = owners[won.indexOf(true)];
    expect(await lease(a, { id }).holder()).toBe(winner);
    // The losers cannot get it afterwards either while the winner is fresh.
    for (const o of owners.filter((x) => x !== winner)) expect(await lease(b, { id }).acquire(o)).toBe(false);
  });

  it('is taken over once its holder stops renewing for staleMs, and not before', async () => {
    const [a, b] = await twoProcesses();
    const id = uniqueName('expiry');
    expect(await lease(a, { id }).acquire('first')).toBe(true);
    time += STALE_MS - 1;
    expect(await lease(b, { id }).acquire('second')).toBe(false);
    // A renewal puts the expiry off again.
    expect(await lease(a, { id }).renew('first')).toBe(true);
    time += STALE_MS - 1;
    expect(await lease(b, { id }).acquire('second')).toBe(false);
    time += 2;
    expect(await lease(b, { id }).acquire('second')).toBe(true);
    expect(await lease(a, { id }).holder()).toBe('second');
    // The presumed-dead holder learns it lost the lease, and cannot free its successor's.
    expect(await lease(a, { id }).renew('first')).toBe(false);
    expect(await lease(a, { id }).release('first')).toBe(false);
    expect(await lease(a, { id }).holder()).toBe('second');
  });

  it('refuses a renewal or a release by an owner that does not hold it', async () => {
    const [a, b] = await twoProcesses();
    const id = uniqueName('renew');
    expect(await lease(a, { id }).acquire('holder')).toBe(true);
    expect(await lease(b, { id }).renew('intruder', { note: 'mine' })).toBe(false);
    expect(await lease(b, { id }).release('intruder')).toBe(false);
    expect(await lease(a, { id }).holder()).toBe('holder');
    const doc = await a.collection('leases').findOne({ _id: id });
    expect(doc).not.toHaveProperty('note');
    expect(await lease(a, { id }).renew('holder', { note: 'mine' })).toBe(true);
    expect(await a.collection('leases').findOne({ _id: id })).toMatchObject({ owner: 'holder', note: 'mine', kind: 'test' });
  });

  it('is free at once when released, for any owner', async () => {
    const [a, b] = await twoProcesses();
    const id = uniqueName('release');
    expect(await lease(a, { id }).acquire('first')).toBe(true);
    expect(await lease(a, { id }).release('first')).toBe(true);
    expect(await lease(a, { id }).holder()).toBeNull();
    expect(await lease(b, { id }).acquire('second')).toBe(true);
  });

  it('without `create`, takes only a document that exists and matches `where`', async () => {
    const [a] = await twoProcesses();
    const id = uniqueName('job');
    const jobLease = (owner: string) => ({ l: lease(a, { id, create: undefined, where: { state: 'running' } }), owner });
    const first = jobLease('runner-1');
    expect(await first.l.acquire(first.owner)).toBe(false);
    expect(await a.collection('leases').findOne({ _id: id })).toBeNull();
    await a.collection('leases').insertOne({ _id: id, state: 'running', owner: 'dead-runner', heartbeatAt: time - STALE_MS - 1 });
    expect(await first.l.acquire(first.owner)).toBe(true);
    // A job no longer running is nobody's to take, however old its heartbeat.
    await a.collection('leases').updateOne({ _id: id }, { $set: { state: 'done', heartbeatAt: 0 } });
    expect(await jobLease('runner-2').l.acquire('runner-2')).toBe(false);
    expect(await first.l.renew(first.owner)).toBe(false);
  });
});
