// The platform client against the local fake: the three paging styles, waiting out the rate
// limit before a 429, retries with backoff on 429 and 5xx, and each failure as a clear error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformClient, PlatformError } from '../../src/adapters/platform/platform-client.js';
import { FakePlatform } from '../support/fake-platform.js';

describe('platform client', () => {
  const fake = new FakePlatform({ accounts: 2, chatsPerAccount: 130, messagesPerChat: 230, transactionsPerChat: 1, rateLimit: 15, rateWindowMs: 400 });
  let url = '';
  beforeAll(async () => { url = await fake.start(); });
  afterAll(async () => { await fake.stop(); });
  const client = (extra: Partial<ConstructorParameters<typeof PlatformClient>[0]> = {}) =>
    new PlatformClient({ baseUrl: url, apiKey: fake.apiKey, rateWindowMs: 400, maxRetries: 3, timeoutMs: 2000, ...extra });

  it('follows offset, message-id cursor and marker paging to the end, keeping ids exact', async () => {
    const c = client();
    const account = fake.data[0]?.id ?? '';
    const chats: string[] = [];
    for await (const page of c.chats(account)) chats.push(...page.map((x) => String((x.fan as { id: unknown }).id)));
    expect(chats).toEqual(fake.data[0]?.chats);
    const chatId = chats[0] ?? '';
    const ids: string[] = [];
    for await (const page of c.messages(account, chatId)) ids.push(...page.map((m) => String(m.id)));
    const expected = (fake.data[0]?.messages ?? []).filter((m) => m.chatId === chatId).map((m) => m.id).reverse();
    expect(ids).toEqual(expected);
    expect(ids[0]).toMatch(/^41\d{11}$/);
    const txns: string[] = [];
    for await (const page of c.transactions(account, new Date('2026-01-01T00:00:00Z'))) txns.push(...page.map((t) => String(t.id)));
    expect(new Set(txns)).toEqual(new Set(fake.data[0]?.transactions.map((t) => t.id)));
    expect(txns).toHaveLength(130);
    expect((await c.accounts()).map((a) => a.id)).toEqual(fake.data.map((a) => a.id));
  });

  it('waits out the rate limit from the headers instead of running into 429s', async () => {
    await new Promise((r) => setTimeout(r, 450));
    const c = client();
    const before = fake.limited;
    let pages = 0;
    for (const chat of fake.data[1]?.chats.slice(0, 8) ?? []) {
      for await (const _ of c.messages(fake.data[1]?.id ?? '', chat)) pages++;
    }
    expect(pages).toBe(24);
    expect(c.requests).toBeGreaterThan(0);
    expect(c.waitedMs).toBeGreaterThan(0);
    expect(fake.limited - before).toBeLessThanOrEqual(1);
  });

  it('retries 429 and 5xx with backoff, then answers', async () => {
    fake.faults.fail5xxEvery = 3;
    fake.faults.fail429Every = 5;
    try {
      const c = client({ maxRetries: 6 });
      const chats: unknown[] = [];
      for await (const page of c.chats(fake.data[0]?.id ?? '')) chats.push(...page);
      expect(chats).toHaveLength(130);
    } finally {
      fake.faults.fail5xxEvery = 0;
      fake.faults.fail429Every = 0;
    }
  });

  it('names the problem: missing key, wrong key, platform down, re-authenticating account, foreign next page', async () => {
    await expect(client({ apiKey: null }).accounts()).rejects.toMatchObject({ kind: 'missing-key', message: expect.stringContaining('PLATFORMAPI_KEY') });
    await expect(client({ apiKey: 'wrong' }).accounts()).rejects.toMatchObject({ kind: 'unauthorized', status: 401, message: expect.stringContaining('PLATFORMAPI_KEY') });
    fake.faults.down = true;
    await expect(client({ maxRetries: 1 }).accounts()).rejects.toMatchObject({ kind: 'unavailable' });
    fake.faults.down = false;
    const account = fake.data[0]?.id ?? '';
    fake.faults.reauthenticating.add(account);
    await expect(client({ maxRetries: 0 }).page(`api/${account}/chats`)).rejects.toMatchObject({ kind: 'unavailable', status: 503 });
    fake.faults.reauthenticating.clear();
    await expect(client().page('https://elsewhere.example/api/accounts')).rejects.toBeInstanceOf(PlatformError);
  });
});
