// An account's banned phrases: an admin sets the list, replies received from then on are
// flagged for the phrases they contain (through the real processor), counted per chatter in
// the conversion report and its export, listed in the session's analysis; replies received
// before keep the flags they got; a bad list is refused naming the phrase.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { startHarness, type Harness } from '../support/app-harness.js';

const A = 'acct_0bad0000000000000000000000000001';
const ADMIN = 'admin-token-for-banned-phrases-0';
const CONNECTOR = 'connector-token-banned-000000000';
const at = (min: number): string => new Date(Date.UTC(2026, 5, 13, 9, 0) + min * 60_000).toISOString();

interface Chatter { chatterId: string | null; qaFlags: { offPlatformContact: number; offPlatformPayment: number; bannedPhrase: number } }
interface Listed { accountId: string; phrases: string[]; history: { from: string; by: string; phrases: string[] }[] }

describe('banned phrases', () => {
  let h: Harness;
  let n = 0;
  const reply = (fanId: string, messageId: string, minute: number, chatterId: string, text: string) => h.call('POST', '/api/connector/ingest', {
    token: CONNECTOR, body: { accountId: A, messages: [{ chatId: fanId, messageId, text, sentAt: at(minute), chatterId }] },
  });
  const fan = (fanId: string, messageId: string, minute: number) => h.webhook(messageWebhook({ accountId: A, fanId, messageId, createdAt: at(minute), text: 'hi', direction: 'received' }), { key: `evt_bp_${++n}` });
  const setList = (phrases: unknown, token = ADMIN) => h.call<Listed>('PUT', `/api/admin/accounts/${A}/banned-phrases`, { token, body: { phrases } });

  beforeAll(async () => {
    h = await startHarness({ ADMIN_TOKEN: ADMIN, CONNECTOR_TOKEN: CONNECTOR }, { driven: true });
    expect((await h.call('POST', '/api/admin/accounts', { token: ADMIN, body: { id: A, displayName: 'Banned phrases' } })).status).toBeLessThan(300);
    // Before any list: ann writes a phrase that will be banned.
    await fan('501', '5001', 0);
    expect((await reply('501', '5002', 1, 'ann', 'Meet me at the cafe')).status).toBe(200);
    await h.settled();
    const set = await setList(['  MEET me ', 'snap']);
    expect(set.status, set.text).toBe(200);
    await fan('502', '5101', 10);
    expect((await reply('502', '5102', 11, 'ann', 'we could meet   ME later')).status).toBe(200);
    expect((await reply('502', '5103', 12, 'bob', 'snapshots are fun, but snap me')).status).toBe(200);
    expect((await reply('502', '5104', 13, 'bob', 'snapshots only')).status).toBe(200);
    await h.settled();
  });
  afterAll(async () => { await h?.stop(); });

  it('keeps the list as set, with who set it and from when', async () => {
    const r = await h.call<Listed>('GET', `/api/admin/accounts/${A}/banned-phrases`, { token: ADMIN });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ accountId: A, phrases: ['meet me', 'snap'], history: [{ by: 'ADMIN_TOKEN', phrases: ['meet me', 'snap'] }] });
  });

  it('counts the replies received after the list was set, per chatter, in the report and its export', async () => {
    const r = await h.call<{ chatters: Chatter[] }>('GET', `/api/conversion?accountId=${A}`);
    const flags = Object.fromEntries(r.body.chatters.map((c) => [c.chatterId, c.qaFlags.bannedPhrase]));
    // ann's first reply came before the list: it keeps no flag.
    expect(flags).toEqual({ ann: 1, bob: 1 });
    const csv = await h.call('GET', `/api/exports/conversion.csv?accountId=${A}`);
    const [header, ...rows] = csv.text.trim().split('\r\n');
    const col = header?.split(',').indexOf('qaBannedPhrase') ?? -1;
    expect(col).toBeGreaterThan(0);
    expect(rows.filter((l) => l.startsWith('chatter')).map((l) => l.split(',')[col])).toEqual(['1', '1']);
  });

  it('lists the phrase in the session\'s analysis', async () => {
    const sessions = await h.call<{ items: { id: string; chatId: string }[] }>('GET', `/api/sessions?accountId=${A}&limit=10&sort=opened`);
    const id = sessions.body.items.find((s) => s.chatId === '502')?.id ?? '';
    const analysis = await h.call<{ qaFlags: { messageId: string; chatterId: string; rule: string; match: string }[] }>('GET', `/api/sessions/${encodeURIComponent(id)}/analysis`);
    expect(analysis.status, analysis.text).toBe(200);
    expect(analysis.body.qaFlags.filter((f) => f.rule === 'banned-phrase').map((f) => [f.messageId, f.chatterId, f.match])).toEqual([['5102', 'ann', 'meet me'], ['5103', 'bob', 'snap']]);
  });

  it('refuses a bad list naming the phrase, an unknown account, and a caller without the admin token', async () => {
    const dup = await setList(['snap', 'Snap']);
    expect(dup.status).toBe(400);
    expect(dup.text).toMatch(/phrases\/1.*repeats phrases\/0/);
    expect((await setList(['x'])).text).toMatch(/phrases\/0.*at least 2/);
    expect((await setList('snap')).status).toBe(400);
    expect((await h.call('PUT', '/api/admin/accounts/acct_00000000000000000000000000000000/banned-phrases', { token: ADMIN, body: { phrases: [] } })).status).toBe(404);
    expect((await setList([], 'not-the-admin-token-000000000000')).status).toBe(401);
    // Clearing is a list too: nothing is flagged from now on, and the history keeps both.
    const cleared = await setList([]);
    expect(cleared.body).toMatchObject({ phrases: [], history: [{ phrases: [] }, { phrases: ['meet me', 'snap'] }] });
  });
});
