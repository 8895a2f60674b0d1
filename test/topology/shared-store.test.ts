// Deployments that share a database (distributed) or a DATA_DIR (embedded) keep their own
// chat states, read models, pointer and jobs, named under their TOPIC_PREFIX, the way their
// topics and consumer groups already are. They ingest the same chat of the same account
// here, so without the prefix their documents would have the same ids in the same
// collections and overwrite each other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import { MongoStore } from '../../src/adapters/store/mongo-store.js';
import { withPrefix } from '../../src/adapters/store/prefixed-store.js';
import type { DocumentStore } from '../../src/adapters/store/store.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { ReadModelSet } from '../../src/read-models/read-model-set.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs, startWithEnv, type Deployment } from '../support/deployments.js';
import { getJson, messageBody, postWebhook } from '../support/platform.js';
import { settledHash } from '../support/read-models.js';
import { eventually, uniqueName } from '../support/wait.js';

const ADMIN = 'admin-token-for-shared-store-0000';
const admin = { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` };
const ACCOUNT = 'acct_0a000000000000000000000000000000';
const FAN = 880001;
const OTHER_FAN = 880002;

interface Msg { id: number; fan: number; at: string; direction: 'received' | 'sent' }
interface Overview { accounts: number; chats: number; sessions: { total: number }; messages: { total: number; fromFans: number }; readModelVersion: number }
interface SessionItem { id: string; accountId: string; chatId: string; messageCount: number }

interface Tenant {
  readonly name: string;
  readonly prefix: string;
  readonly messages: readonly Msg[];
  /** What its /api/sessions must show: chat id and message count, nothing else. */
  readonly sessions: readonly { chatId: string; messageCount: number }[];
  readonly overview: { chats: number; sessions: number; messages: number; fromFans: number };
  app?: RunningApp;
}

function tenants(kind: Deployment): Tenant[] {
  const id = uniqueName('t').replace(/-/g, '');
  const list: Tenant[] = [
    {
      name: 'a', prefix: `${id}a.`,
      messages: [{ id: 5001, fan: FAN, at: '2026-06-10T10:00:00Z', direction: 'received' }],
      sessions: [{ chatId: String(FAN), messageCount: 1 }],
      overview: { chats: 1, sessions: 1, messages: 1, fromFans: 1 },
    },
    {
      name: 'b', prefix: `${id}b.`,
      messages: [
        { id: 6001, fan: FAN, at: '2026-06-10T11:00:00Z', direction: 'received' },
        { id: 6002, fan: FAN, at: '2026-06-10T11:01:00Z', direction: 'sent' },
        { id: 6003, fan: FAN, at: '2026-06-10T11:02:00Z', direction: 'received' },
        { id: 6004, fan: OTHER_FAN, at: '2026-06-10T11:03:00Z', direction: 'received' },
      ],
      sessions: [{ chatId: String(FAN), messageCount: 3 }, { chatId: String(OTHER_FAN), messageCount: 1 }],
      overview: { chats: 2, sessions: 2, messages: 4, fromFans: 3 },
    },
  ];
  // No prefix keeps today's collection names. Only where the whole store is this test's own:
  // unprefixed topics on the shared broker would meet other test runs.
  if (kind === 'embedded') {
    list.push({
      name: 'unprefixed', prefix: '',
      messages: [
        { id: 7001, fan: FAN, at: '2026-06-10T12:00:00Z', direction: 'received' },
        { id: 7002, fan: FAN, at: '2026-06-10T12:00:30Z', direction: 'received' },
      ],
      sessions: [{ chatId: String(FAN), messageCount: 2 }],
      overview: { chats: 1, sessions: 1, messages: 2, fromFans: 2 },
    });
  }
  return list;
}

const sorted = <T>(xs: readonly T[], key: (x: T) => string): T[] => [...xs].sort((a, b) => key(a).localeCompare(key(b)));

async function sessionsOf(t: Tenant): Promise<{ chatId: string; messageCount: number }[]> {
  const items = (await getJson<{ items: SessionItem[] }>(t.app?.url ?? '', '/api/sessions?limit=500')).body.items;
  for (const s of items) expect(s.accountId).toBe(ACCOUNT);
  return sorted(items.map((s) => ({ chatId: s.chatId, messageCount: s.messageCount })), (s) => s.chatId);
}

async function overviewOf(t: Tenant): Promise<Overview> {
  return (await getJson<Overview>(t.app?.url ?? '', '/api/overview')).body;
}

async function expectOwnData(t: Tenant): Promise<void> {
  expect({ tenant: t.name, sessions: await sessionsOf(t) }).toEqual({ tenant: t.name, sessions: sorted(t.sessions, (s) => s.chatId) });
  const o = await overviewOf(t);
  expect({ tenant: t.name, accounts: o.accounts, chats: o.chats, sessions: o.sessions.total, messages: o.messages.total, fromFans: o.messages.fromFans })
    .toEqual({ tenant: t.name, accounts: 1, ...t.overview });
}

describe.each(DEPLOYMENTS)('deployments sharing one store (%s)', (kind) => {
  const list = tenants(kind);
  let raw: DocumentStore;

  beforeAll(async () => {
    // One database (or DATA_DIR) for all of them; each its own prefix.
    const shared = await deploymentEnv(kind, { ADMIN_TOKEN: ADMIN });
    for (const t of list) t.app = await startWithEnv({ ...shared, TOPIC_PREFIX: t.prefix });
    raw = kind === 'embedded' ? new EmbeddedStore(shared.DATA_DIR ?? '') : await MongoStore.connect(shared.MONGO_URL ?? '', shared.MONGO_DB ?? '');
    for (const t of list) {
      for (const m of t.messages) {
        const body = messageBody({ accountId: ACCOUNT, fanId: m.fan, messageId: m.id, createdAt: m.at, direction: m.direction });
        expect((await postWebhook(t.app?.url ?? '', body, { key: `evt_shared_${m.id}` })).status).toBe(200);
      }
    }
    for (const t of list) await settledHash(t.app?.url ?? '', t.app?.store as DocumentStore);
  });

  afterAll(async () => {
    for (const t of list) await t.app?.stop();
    await raw?.close();
    removeDataDirs();
  });

  it('each serves only its own sessions and totals, for the same chat of the same account', async () => {
    for (const t of list) await expectOwnData(t);
  });

  it('stores its collections under its prefix, and lists them without it', async () => {
    const stored = await raw.listCollections();
    for (const t of list) {
      const own = await (t.app?.store as DocumentStore).listCollections();
      expect(own).toEqual(expect.arrayContaining(['sessions_v1', 'messages_v1', 'account_stats_v1', 'chat_state']));
      expect(stored).toEqual(expect.arrayContaining(own.map((n) => `${t.prefix}${n}`)));
      if (t.prefix !== '') {
        const others = list.filter((o) => o.prefix !== '' && o !== t).map((o) => o.prefix);
        expect(own.filter((n) => others.some((p) => n.includes(p)))).toEqual([]);
      }
    }
    // Nothing a prefixed deployment wrote landed under a name without its prefix.
    const prefixed = list.filter((t) => t.prefix !== '');
    const unprefixed = list.find((t) => t.prefix === '');
    const stray = stored.filter((n) => !prefixed.some((t) => n.startsWith(t.prefix)));
    if (unprefixed) expect(stray).toEqual(expect.arrayContaining(['sessions_v1', 'chat_state']));
    else expect(stray).toEqual([]);
  });

  it('a replay in one moves only its own read-model version', async () => {
    const [a, b] = list as [Tenant, Tenant];
    const res = await fetch(`${a.app?.url}/api/admin/replay`, { method: 'POST', headers: admin, body: '{}' });
    expect(res.status).toBe(202);
    const job = (await res.json()) as { statusUrl: string; targetVersion: number };
    expect(job.targetVersion).toBe(2);
    await eventually(async () => {
      const s = (await (await fetch(`${a.app?.url}${job.statusUrl}`, { headers: admin })).json()) as { state: string };
      if (s.state === 'failed') throw new Error(`replay failed: ${JSON.stringify(s)}`);
      return s.state === 'done' ? true : undefined;
    }, 60_000, 'replay done');
    expect((await overviewOf(a)).readModelVersion).toBe(2);
    expect(await new ReadModelSet(a.app?.store as DocumentStore).storedVersions()).toEqual([1, 2]);
    for (const t of list.slice(1)) {
      expect((await overviewOf(t)).readModelVersion).toBe(1);
      expect(await new ReadModelSet(t.app?.store as DocumentStore).storedVersions()).toEqual([1]);
    }
    for (const t of list) await expectOwnData(t);
    // B is not replaying: its own replay starts at once (the lock is in its own jobs collection).
    const other = await fetch(`${b.app?.url}/api/admin/replay`, { method: 'POST', headers: admin, body: '{}' });
    expect(other.status).toBe(202);
    await eventually(async () => ((await overviewOf(b)).readModelVersion === 2 ? true : undefined), 60_000, 'b replay done');
  });

  it('a full reset of one drops only its own read models and chat states', async () => {
    const [a, b] = list as [Tenant, Tenant];
    const res = await fetch(`${b.app?.url}/api/admin/purge-demo`, { method: 'POST', headers: admin, body: JSON.stringify({ full: true }) });
    expect(res.status).toBe(200);
    expect(await sessionsOf(b)).toEqual([]);
    // Restarting recreates its (empty) collections; what counts is that the documents went, and only B's.
    const count = (name: string) => raw.collection(name).countDocuments();
    expect(await count(`${b.prefix}sessions_v1`)).toBe(0);
    expect(await count(`${b.prefix}chat_state`)).toBe(0);
    expect(await count(`${a.prefix}sessions_v2`)).toBe(1);
    expect(await count(`${a.prefix}chat_state`)).toBe(1);
    for (const t of list.filter((x) => x !== b)) await expectOwnData(t);
  });
});

describe('the prefix at the store seam', () => {
  it('is no wrapper at all when empty, so existing names stay exactly as they were', () => {
    const store = { kind: 'embedded' } as unknown as DocumentStore;
    expect(withPrefix(store, '')).toBe(store);
  });

  it('maps bulk writes to several collections too', async () => {
    const seen: string[] = [];
    const inner = {
      kind: 'embedded',
      bulkWriteMany: async (writes: readonly { collection: string }[]) => { seen.push(...writes.map((w) => w.collection)); },
      listCollections: async () => ['p.meta', 'p.sessions_v1', 'q.meta', 'meta', 'p.'],
    } as unknown as DocumentStore;
    const store = withPrefix(inner, 'p.');
    await store.bulkWriteMany([{ collection: 'sessions_v1', ops: [] }, { collection: 'chats_v1', ops: [] }]);
    expect(seen).toEqual(['p.sessions_v1', 'p.chats_v1']);
    expect(await store.listCollections()).toEqual(['meta', 'sessions_v1']);
  });

  it('refuses a prefix that would name MongoDB system collections', () => {
    expect(() => loadConfig({ TOPIC_PREFIX: 'system.x' })).toThrow(ConfigError);
    expect(() => loadConfig({ TOPIC_PREFIX: 'system.x' })).toThrow(/TOPIC_PREFIX/);
  });
});
