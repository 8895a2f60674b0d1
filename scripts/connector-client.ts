// A reference client of the connector contract (docs/connector.md): posts the replies your
// own tooling saw, each with the chatter who sent it, to POST /api/connector/ingest, so the
// scorecard and revenue credit name who answered. Reads JSON lines on stdin, one reply each:
//   {"chatId":"1000005","messageId":"1000027","text":"hi!","sentAt":"2026-11-26T10:00:00Z","chatterId":"ann"}
// and sends them in batches of up to 500, again after a 429 or 503 (waiting as the answer says).
//   CONNECTOR_TOKEN=… node --import tsx scripts/connector-client.ts --url http://localhost:3000 --account acct_… < replies.jsonl
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

export interface Reply {
  /** The fan's platform user id (the chat), digits only. */
  readonly chatId: string;
  /** The platform's message id, digits only: the webhook for the same message carries it as a number. */
  readonly messageId: string;
  readonly text: string;
  /** ISO 8601 with a zone. */
  readonly sentAt: string;
  /** Your name for the person who sent it: 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit. */
  readonly chatterId: string;
  /** A scheduled or mass message rather than a person's reply. */
  readonly automated?: boolean;
}

export interface SendOptions {
  readonly url: string;
  readonly token: string;
  readonly accountId: string;
  /** At most 500 (the route's limit). */
  readonly batchSize?: number;
  readonly maxAttempts?: number;
  /** fetch, or a stand-in (a test passes the app's own). */
  readonly fetch?: (url: string, init: { method: string; headers: Record<string, string>; body: string }) => Promise<Response>;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly log?: (line: string) => void;
}

export class ConnectorRefused extends Error {
  constructor(readonly status: number, readonly code: string | undefined, message: string) {
    super(message);
  }
}

/** Sends every reply; resolves with how many the service accepted, or throws ConnectorRefused on a 4xx it will not retry. */
export async function sendReplies(replies: readonly Reply[], o: SendOptions): Promise<number> {
  const size = Math.min(500, Math.max(1, o.batchSize ?? 500));
  const doFetch = o.fetch ?? ((url, init) => fetch(url, init));
  const sleep = o.sleep ?? ((ms) => new Promise<void>((r) => setTimeout(r, ms)));
  let accepted = 0;
  for (let i = 0; i < replies.length; i += size) {
    const batch = replies.slice(i, i + size);
    const body = JSON.stringify({ accountId: o.accountId, messages: batch });
    for (let attempt = 1; ; attempt++) {
      const res = await doFetch(`${o.url.replace(/\/$/, '')}/api/connector/ingest`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${o.token}` }, body,
      });
      const answer = (await res.json().catch(() => ({}))) as { accepted?: number; code?: string; message?: string };
      if (res.ok) {
        accepted += answer.accepted ?? batch.length;
        o.log?.(`sent ${i + batch.length} of ${replies.length}`);
        break;
      }
      // Busy or rate-limited: the same batch again (the service deduplicates by message id).
      if ((res.status === 429 || res.status === 503) && attempt < (o.maxAttempts ?? 8)) {
        const after = Number(res.headers.get('retry-after'));
        await sleep(Number.isFinite(after) && after > 0 ? after * 1000 : Math.min(30_000, 500 * 2 ** attempt));
        continue;
      }
      throw new ConnectorRefused(res.status, answer.code, `replies ${i + 1}–${i + batch.length}: ${res.status} ${answer.message ?? ''}`.trim());
    }
  }
  return accepted;
}

/** One reply per non-empty line; a line that is not a reply stops with its number. */
export function parseLines(lines: readonly string[]): Reply[] {
  return lines.flatMap((line, i) => {
    if (line.trim() === '') return [];
    try {
      const r = JSON.parse(line) as Record<string, unknown>;
      if (typeof r !== 'object' || r === null) throw new Error('must be a JSON object');
      // Ids as strings: a JSON number above 2^53 has already lost digits when it is parsed.
      for (const f of ['chatId', 'messageId', 'text', 'sentAt', 'chatterId'] as const) {
        if (typeof r[f] !== 'string') throw new Error(`${f}: must be a string`);
      }
      if (r.automated !== undefined && typeof r.automated !== 'boolean') throw new Error('automated: must be true or false');
      // Only the contract's fields: the route refuses a batch with any other.
      const reply: Reply = { chatId: r.chatId as string, messageId: r.messageId as string, text: r.text as string, sentAt: r.sentAt as string, chatterId: r.chatterId as string };
      return [r.automated === undefined ? reply : { ...reply, automated: r.automated as boolean }];
    } catch (err) {
      throw new Error(`line ${i + 1}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { url: { type: 'string', default: 'http://localhost:3000' }, account: { type: 'string' } } });
  const token = process.env.CONNECTOR_TOKEN;
  if (!token || !values.account) {
    console.error('usage: CONNECTOR_TOKEN=… node --import tsx scripts/connector-client.ts --url http://localhost:3000 --account <accountId> < replies.jsonl');
    process.exit(2);
  }
  const lines: string[] = [];
  for await (const line of createInterface({ input: process.stdin })) lines.push(line);
  const accepted = await sendReplies(parseLines(lines), { url: values.url, token, accountId: values.account, log: (l) => console.error(l) });
  console.log(JSON.stringify({ accepted }));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  });
}
