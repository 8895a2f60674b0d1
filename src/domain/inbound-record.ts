// The shape of a record on the `inbound` topic: the raw source bytes plus routing headers.
// Every source (webhook, demo, connector, backfill, admin command, clock) writes this shape.

/** A record's key: its chat, so every record of a chat lands on one partition in order. */
export function chatKeyOf(accountId: string, chatId: string): string {
  return `${accountId}:${chatId}`;
}

export type InboundSource = 'webhook' | 'demo' | 'connector' | 'backfill' | 'command' | 'tick';

export const H = {
  source: 'convops-source',
  event: 'convops-event',
  account: 'convops-account',
  chat: 'convops-chat',
  dedupe: 'convops-dedupe',
  receivedAt: 'convops-received-at',
  chatter: 'convops-chatter',
  /** The input the door normalised the body to (JSON), so the processor need not parse the body again. */
  input: 'convops-input',
  /** The form of that input (normalise.ts INPUT_FORM): another form is normalised from the body again. */
  inputForm: 'convops-input-form',
} as const;

export interface InboundMeta {
  readonly source: InboundSource;
  readonly event: string;
  readonly accountId: string;
  readonly chatId: string;
  readonly dedupeKey: string;
  readonly receivedAt: number;
  readonly chatterId?: string;
}

/** An `inbound` record as its sources append it (an AppendRecord of the log seam, adapters/log/log.ts). */
export interface InboundRecord {
  /** chatKeyOf its account and chat. */
  readonly key: string;
  /** The raw source bytes. */
  readonly value: Buffer;
  /** The routing headers (H). */
  readonly headers: Readonly<Record<string, string>>;
  /** When ingest received it. */
  readonly timestamp: number;
}

/** `carried`: headers carrying the input the door normalised the body to (normalise.ts inputHeaders), made with this very meta. */
export function inboundRecord(meta: InboundMeta, raw: Buffer, carried?: Readonly<Record<string, string>>): InboundRecord {
  const headers: Record<string, string> = {
    ...carried,
    [H.source]: meta.source,
    [H.event]: meta.event,
    [H.account]: meta.accountId,
    [H.chat]: meta.chatId,
    [H.dedupe]: meta.dedupeKey,
    [H.receivedAt]: String(meta.receivedAt),
  };
  if (meta.chatterId) headers[H.chatter] = meta.chatterId;
  return { key: chatKeyOf(meta.accountId, meta.chatId), value: raw, headers, timestamp: meta.receivedAt };
}

/**
 * The headers less the input the door carried: a retried record is normalised from its raw
 * bytes by the code that runs now (its cause may have been the normaliser, since fixed).
 */
export function withoutCarriedInput(headers: Readonly<Record<string, string>>): Record<string, string> {
  const { [H.input]: _input, [H.inputForm]: _form, ...rest } = headers;
  return rest;
}

export function readInboundMeta(headers: Readonly<Record<string, string>>): InboundMeta | undefined {
  const source = headers[H.source] as InboundSource | undefined;
  const event = headers[H.event];
  const accountId = headers[H.account];
  const chatId = headers[H.chat];
  const dedupeKey = headers[H.dedupe];
  const receivedAt = Number(headers[H.receivedAt]);
  if (!source || !event || !accountId || !chatId || !dedupeKey || !Number.isFinite(receivedAt)) return undefined;
  const chatterId = headers[H.chatter];
  return { source, event, accountId, chatId, dedupeKey, receivedAt, ...(chatterId ? { chatterId } : {}) };
}

/** The command that tells a chat its bulk history (seeding, a backfill) is all in the log: see ChatSettleInput. */
export const HISTORY_COMPLETE = 'command.history-complete';

/**
 * One settle record per chat, to append after that chat's history: the chat closes what has
 * already run past its idle gap or unanswered limit by `at`, instead of showing it open until
 * its arrivals go idle and a tick comes. Keyed by its time, so a seeding repeated later settles again.
 */
export function historyCompleteRecords(chats: Iterable<{ readonly accountId: string; readonly chatId: string }>, at: number): InboundRecord[] {
  const seen = new Set<string>();
  const out: InboundRecord[] = [];
  const body = Buffer.from(JSON.stringify({ through: new Date(at).toISOString() }));
  for (const c of chats) {
    const key = chatKeyOf(c.accountId, c.chatId);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(inboundRecord({ source: 'command', event: HISTORY_COMPLETE, accountId: c.accountId, chatId: c.chatId, dedupeKey: `settle:${key}:${at}`, receivedAt: at }, body));
  }
  return out;
}
