// A local fake of the platform's REST API, for tests and for trying the flow by hand
// (`node --import tsx scripts/fake-platform.ts`). Real shapes and paging: accounts (bare array),
// authentication (start, poll, 2FA), chats (offset), messages (message-id cursor), transactions
// (marker). A per-window rate limit with the real headers, and injectable faults: 429s, 5xx,
// slow answers, and an account that is re-authenticating (503). It can also produce the same
// data as signed webhooks, so backfill and live webhooks can be tested together.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { messageWebhook, transactionWebhook } from '../../src/demo/platform-bodies.js';
import { mulberry32 } from '../../src/demo/random.js';

export interface FakeMessage { id: string; chatId: string; text: string; price: number; createdAt: string; sentByMe: boolean }
export interface FakeTransaction { id: string; chatId: string; amount: number; type: 'tip' | 'message' | 'subscription'; createdAt: string }
export interface FakeAccount { id: string; username: string; displayName: string; authenticated: boolean; chats: string[]; messages: FakeMessage[]; transactions: FakeTransaction[] }

export interface FakeFaults {
  /** Every n-th request answers 500 (0: never). */
  fail5xxEvery: number;
  /** Every n-th request answers 429 regardless of the limit (0: never). */
  fail429Every: number;
  slowMs: number;
  /** Accounts whose requests answer 503 while they re-authenticate. */
  reauthenticating: Set<string>;
  down: boolean;
  /**
   * Transactions pages that say `hasMore: true` but leave out `_pagination.next_page`
   * (`no-next-page`, the marker is still in `data.nextMarker`) or both (`no-next-page-or-marker`).
   */
  transactionPaging: 'normal' | 'no-next-page' | 'no-next-page-or-marker';
}

export interface FakePlatformOptions {
  readonly apiKey?: string;
  readonly rateLimit?: number;
  readonly rateWindowMs?: number;
  readonly accounts?: number;
  readonly chatsPerAccount?: number;
  readonly messagesPerChat?: number;
  readonly transactionsPerChat?: number;
  readonly seed?: number;
}

const T0 = Date.parse('2026-05-01T08:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');

export function fakeData(o: FakePlatformOptions = {}): FakeAccount[] {
  const rand = mulberry32(o.seed ?? 42);
  const accounts: FakeAccount[] = [];
  let messageId = 4_100_000_000_000;
  let txn = 1;
  for (let a = 0; a < (o.accounts ?? 1); a++) {
    const id = `acct_${(0xfa7e0000 + a).toString(16).padStart(32, '0')}`;
    const acc: FakeAccount = { id, username: `creator${a}`, displayName: `Creator ${a}`, authenticated: true, chats: [], messages: [], transactions: [] };
    for (let c = 0; c < (o.chatsPerAccount ?? 5); c++) {
      const chatId = String(600_000_000 + a * 100_000 + c);
      acc.chats.push(chatId);
      let t = T0 + Math.floor(rand() * 3_600_000);
      const perChat = o.messagesPerChat ?? 20;
      const txns = o.transactionsPerChat ?? 2;
      const txnAt = new Set(Array.from({ length: txns }, (_, k) => Math.floor(((k + 1) * perChat) / (txns + 1))));
      for (let m = 0; m < perChat; m++) {
        // Conversations with pauses: most gaps are a minute or two, some are hours (new sessions).
        t += rand() < 0.08 ? 3 * 3_600_000 : 20_000 + Math.floor(rand() * 150_000);
        t -= t % 1000;
        const sentByMe = m % 2 === 1;
        acc.messages.push({ id: String(messageId++), chatId, text: sentByMe ? `reply ${m}` : `fan says ${m}`, price: sentByMe && m % 7 === 1 ? 10 : 0, createdAt: iso(t), sentByMe });
        if (txnAt.has(m)) {
          const type = (['tip', 'message', 'subscription'] as const)[txn % 3] ?? 'tip';
          acc.transactions.push({ id: (0xc0000000 + txn++).toString(16).padStart(32, '0'), chatId, amount: 5 + (txn % 20), type, createdAt: iso(t + 1000) });
        }
      }
    }
    accounts.push(acc);
  }
  return accounts;
}

/** The same data as signed-ready webhook bodies, in time order, with idempotency keys. */
export function webhooksOf(accounts: readonly FakeAccount[]): { key: string; body: string; at: number; chat: string }[] {
  const out: { key: string; body: string; at: number; chat: string }[] = [];
  for (const a of accounts) {
    for (const m of a.messages) {
      out.push({ key: `evt_fake_m${m.id}`, chat: `${a.id}:${m.chatId}`, at: Date.parse(m.createdAt), body: messageWebhook({ accountId: a.id, fanId: m.chatId, messageId: m.id, createdAt: m.createdAt, text: m.text, direction: m.sentByMe ? 'sent' : 'received', priceDollars: m.price }) });
    }
    for (const t of a.transactions) {
      out.push({ key: `evt_fake_t${t.id}`, chat: `${a.id}:${t.chatId}`, at: Date.parse(t.createdAt) + 0.5, body: transactionWebhook({ accountId: a.id, fanId: t.chatId, transactionId: t.id, createdAt: t.createdAt, type: t.type, amountDollars: t.amount }) });
    }
  }
  return out.sort((x, y) => x.at - y.at);
}

const DESCRIPTIONS = { tip: 'Tip from', message: 'Payment for message from', subscription: 'Subscription from' } as const;

export class FakePlatform {
  readonly data: FakeAccount[];
  readonly faults: FakeFaults = { fail5xxEvery: 0, fail429Every: 0, slowMs: 0, reauthenticating: new Set(), down: false, transactionPaging: 'normal' };
  readonly apiKey: string;
  requests = 0;
  /** Requests answered 200, by path and query as sent (which pages were fetched, and how often). */
  readonly served = new Map<string, number>();
  limited = 0;
  /** Rate-limit windows whose every request was used (a client that waits stops there, one that does not gets 429s). */
  exhaustedWindows = 0;
  private server?: Server;
  private window = { startedAt: 0, used: 0 };
  private readonly attempts = new Map<string, { polls: number; needsOtp: boolean; otpDone: boolean; accountId: string; name: string }>();
  url = '';

  /** Requests per window; a test may change it between phases. */
  rateLimit: number;

  constructor(private readonly options: FakePlatformOptions = {}) {
    this.rateLimit = options.rateLimit ?? 1000;
    this.data = fakeData(options);
    this.apiKey = options.apiKey ?? 'ofapi_test_key_0000000000000000';
  }

  async start(port = 0): Promise<string> {
    this.server = createServer((req, res) => { void this.handle(req, res); });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    const addr = this.server.address();
    this.url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /**
   * Posts the data as signed webhooks to `target` (the convops webhook URL): each chat's in
   * time order, `concurrency` chats at a time (order only matters within a chat).
   */
  async sendWebhooks(target: string, sign: (body: string) => string | undefined, concurrency = 8): Promise<number> {
    const byChat = new Map<string, { key: string; body: string }[]>();
    for (const w of webhooksOf(this.data)) {
      const list = byChat.get(w.chat) ?? [];
      list.push(w);
      byChat.set(w.chat, list);
    }
    const queues = [...byChat.values()];
    let sent = 0;
    const worker = async () => {
      for (let q = queues.shift(); q; q = queues.shift()) {
        for (const w of q) {
          const signature = sign(w.body);
          // As the platform does: a 503 (the log did not take the record in time, on a busy
          // machine) is delivered again, and the copy is deduplicated; anything else fails.
          for (let attempt = 1; ; attempt++) {
            const res = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json', 'x-ofapi-idempotency-key': w.key, ...(signature ? { signature } : {}) }, body: w.body });
            await res.arrayBuffer();
            if (res.status === 200) break;
            if (res.status !== 503 || attempt >= 10) throw new Error(`webhook ${w.key} got ${res.status}`);
            await new Promise((r) => setTimeout(r, 200 * attempt));
          }
          sent++;
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return sent;
  }

  /** How many times pages whose path starts with `prefix` were served. */
  servedUnder(prefix: string): number {
    let n = 0;
    for (const [path, count] of this.served) if (path.startsWith(prefix)) n += count;
    return n;
  }

  private send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    if (status === 200 && res.req.url) this.served.set(res.req.url, (this.served.get(res.req.url) ?? 0) + 1);
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  private rateHeaders(): Record<string, string> {
    const limit = this.rateLimit;
    return { 'x-rate-limit-limit-minute': String(limit), 'x-rate-limit-remaining-minute': String(Math.max(0, limit - this.window.used)) };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.requests++;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (this.faults.slowMs) await new Promise((r) => setTimeout(r, this.faults.slowMs));
    if (this.faults.down) return this.send(res, 502, { error: 'BAD_GATEWAY', message: 'upstream down' });
    if (req.headers.authorization !== `Bearer ${this.apiKey}`) {
      return this.send(res, 401, { error: 'Unauthorized. Go to https://app.onlyfansapi.com/api-keys to get your API key.' });
    }
    const now = Date.now();
    const windowMs = this.options.rateWindowMs ?? 60_000;
    if (now - this.window.startedAt >= windowMs) this.window = { startedAt: now, used: 0 };
    const limit = this.rateLimit;
    if (this.window.used >= limit || (this.faults.fail429Every && this.requests % this.faults.fail429Every === 0)) {
      this.limited++;
      return this.send(res, 429, { error: 'TOO_MANY_REQUESTS', message: 'Rate limit exceeded' }, { ...this.rateHeaders(), 'retry-after': String(Math.ceil((this.window.startedAt + windowMs - now) / 1000)) });
    }
    this.window.used++;
    if (this.window.used === limit) this.exhaustedWindows++;
    if (this.faults.fail5xxEvery && this.requests % this.faults.fail5xxEvery === 0) return this.send(res, 500, { error: 'SERVER_ERROR', message: 'try again' }, this.rateHeaders());
    const url = new URL(req.url ?? '/', this.url);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> : {};
    const h = this.rateHeaders();
    const meta = { _credits: { used: 1, balance: 1000, note: '' }, _cache: { is_cached: false, note: '' }, _rate_limits: { limit_minute: limit, remaining_minute: limit - this.window.used } };
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] !== 'api') return this.send(res, 404, { error: 'NOT_FOUND', message: 'no such route' }, h);
    if (parts[1] === 'whoami') return this.send(res, 200, { api_key: 'ofapi_…', team: { name: 'Test team' } }, h);
    if (parts[1] === 'accounts' && parts.length === 2) {
      return this.send(res, 200, this.data.map((a) => ({ id: a.id, onlyfans_id: 500_000 + this.data.indexOf(a), onlyfans_username: a.username, display_name: a.displayName, is_authenticated: a.authenticated, authentication_progress: a.authenticated ? 'signed_in' : 'pending' })), h);
    }
    if (parts[1] === 'authenticate') return this.auth(req.method ?? 'GET', parts, body, res, h);
    const account = this.data.find((a) => a.id === parts[1]);
    if (!account) return this.send(res, 404, { error: 'NOT_FOUND', message: `account ${parts[1]} not found` }, h);
    if (this.faults.reauthenticating.has(account.id)) return this.send(res, 503, { error: 'ACCOUNT_REAUTHENTICATING', message: 'The account is re-authenticating' }, h);
    const limitParam = Math.min(100, Math.max(1, Number(url.searchParams.get('limit') ?? 10)));
    if (parts[2] === 'chats' && parts.length === 3) {
      const offset = Number(url.searchParams.get('offset') ?? 0);
      const slice = account.chats.slice(offset, offset + limitParam);
      const next = offset + limitParam < account.chats.length ? `${this.url}/api/${account.id}/chats?offset=${offset + limitParam}&limit=${limitParam}` : null;
      return this.send(res, 200, { data: slice.map((id) => ({ fan: { id: Number(id), username: `u${id}`, name: `Fan ${id}` }, unreadMessagesCount: 0 })), _pagination: { next_page: next }, _meta: meta }, h);
    }
    if (parts[2] === 'chats' && parts[4] === 'messages') {
      const chatId = parts[3] ?? '';
      const cursor = url.searchParams.get('id');
      const all = account.messages.filter((m) => m.chatId === chatId).sort((x, y) => (BigInt(y.id) > BigInt(x.id) ? 1 : -1));
      const from = cursor ? all.filter((m) => BigInt(m.id) < BigInt(cursor)) : all;
      const page = from.slice(0, limitParam);
      const last = page[page.length - 1];
      const next = from.length > limitParam && last ? `${this.url}/api/${account.id}/chats/${chatId}/messages?order=desc&limit=${limitParam}&id=${last.id}` : null;
      const raw = `{"data":[${page.map((m) => JSON.stringify({
        id: '__ID__', text: `<p>${m.text}</p>`, price: m.price, isFree: m.price === 0, createdAt: m.createdAt, isSentByMe: m.sentByMe, isFromQueue: false,
        fromUser: { id: '__FROM__', _view: 's' }, mediaCount: 0, media: [],
      }).replace('"__ID__"', m.id).replace('"__FROM__"', m.sentByMe ? '500000' : m.chatId)).join(',')}],"_pagination":{"next_page":${JSON.stringify(next)}},"_meta":${JSON.stringify(meta)}}`;
      this.served.set(req.url ?? '', (this.served.get(req.url ?? '') ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'application/json', ...h });
      return void res.end(raw);
    }
    if (parts[2] === 'transactions') {
      const start = Date.parse(url.searchParams.get('startDate') ?? '1970-01-01');
      const marker = url.searchParams.get('marker');
      const all = account.transactions.filter((t) => Date.parse(t.createdAt) >= start).sort((x, y) => Date.parse(y.createdAt) - Date.parse(x.createdAt) || (y.id > x.id ? 1 : -1));
      const from = marker ? all.slice(Number(marker)) : all;
      const page = from.slice(0, limitParam);
      const nextMarker = from.length > limitParam ? String((marker ? Number(marker) : 0) + limitParam) : null;
      const next = nextMarker ? `${this.url}/api/${account.id}/transactions?limit=${limitParam}&marker=${nextMarker}&startDate=${encodeURIComponent(url.searchParams.get('startDate') ?? '')}` : null;
      const list = page.map((t) => {
        const fee = Math.round(t.amount * 20) / 100;
        return {
          id: t.id, amount: t.amount, fee, net: Math.round((t.amount - fee) * 100) / 100, vatAmount: 0, taxAmount: 0, currency: 'USD',
          description: `${DESCRIPTIONS[t.type]} ${t.chatId}`, status: 'done', createdAt: t.createdAt, payoutPendingDays: 7, user: { id: Number(t.chatId), name: `Fan ${t.chatId}`, username: `u${t.chatId}` },
        };
      });
      const paging = this.faults.transactionPaging;
      return this.send(res, 200, {
        data: { list, hasMore: nextMarker !== null, marker: marker ?? null, nextMarker: paging === 'no-next-page-or-marker' ? null : nextMarker },
        _pagination: { next_page: paging === 'normal' ? next : null }, _meta: meta,
      }, h);
    }
    return this.send(res, 404, { error: 'NOT_FOUND', message: 'no such route' }, h);
  }

  private auth(method: string, parts: string[], body: Record<string, unknown>, res: ServerResponse, h: Record<string, string>): void {
    if (method === 'POST' && parts.length === 2) {
      if (typeof body.email !== 'string' || typeof body.password !== 'string') {
        return this.send(res, 422, { error: 'VALIDATION_ERROR', message: 'The email field is required.', errors: { email: ['The email field is required.'] } }, h);
      }
      const attemptId = `auth_${this.attempts.size + 1}x${Math.random().toString(36).slice(2, 8)}`;
      const accountId = `acct_${(0xa0000000 + this.attempts.size).toString(16).padStart(32, '0')}`;
      this.attempts.set(attemptId, { polls: 0, needsOtp: String(body.email).includes('2fa'), otpDone: false, accountId, name: typeof body.name === 'string' ? body.name : String(body.email) });
      return this.send(res, 200, { attempt_id: attemptId, message: 'Authentication started', polling_url: `${this.url}/api/authenticate/${attemptId}` }, h);
    }
    const attempt = this.attempts.get(parts[2] ?? '');
    if (!attempt) return this.send(res, 404, { error: 'NOT_FOUND', message: 'attempt not found' }, h);
    if (method === 'PUT') {
      if (body.code !== '123456') return this.send(res, 422, { error: 'VALIDATION_ERROR', message: 'The code is invalid.' }, h);
      attempt.otpDone = true;
      return this.send(res, 200, { message: 'OTP submitted successfully' }, h);
    }
    attempt.polls++;
    const waitingForOtp = attempt.needsOtp && !attempt.otpDone;
    const done = attempt.polls >= 2 && !waitingForOtp;
    if (done && !this.data.some((a) => a.id === attempt.accountId)) {
      this.data.push({ id: attempt.accountId, username: attempt.name, displayName: attempt.name, authenticated: true, chats: [], messages: [], transactions: [] });
    }
    return this.send(res, 200, {
      account: done ? { id: attempt.accountId, display_name: attempt.name, onlyfans_data: {} } : null,
      state: done ? 'authenticated' : 'pending', progress: done ? 'signed_in' : waitingForOtp && attempt.polls >= 1 ? 'needs_otp' : 'signing_in',
      lastAttempt: { started_at: null, completed_at: null, success: done, error_message: null, error_code: null, needs_otp: waitingForOtp && attempt.polls >= 1, otp_phone_ending: '42' },
    }, h);
  }
}
