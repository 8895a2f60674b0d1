// Builds platform webhook bodies from the real (anonymized) samples in shared/platform, and
// posts them signed the way the platform does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { signBody } from '../../src/ingest/signature.js';

const samplesDir = join(import.meta.dirname, '../../../shared/platform/samples');

export function sample(file: string): Record<string, unknown> {
  const { _meta, ...body } = JSON.parse(readFileSync(join(samplesDir, file), 'utf8')) as Record<string, unknown>;
  return body;
}

export interface MessageSpec {
  readonly accountId: string;
  readonly fanId: number | string;
  readonly messageId: number | string;
  readonly createdAt: string;
  readonly text?: string;
  readonly direction: 'received' | 'sent';
  readonly fromQueue?: boolean;
}

/** A messages.received / messages.sent body: the live shape with our ids and times. */
export function messageBody(m: MessageSpec): string {
  const body = sample(m.direction === 'received' ? 'messages_received.json' : 'messages_sent.json') as {
    account_id: string; payload: Record<string, unknown> & { fromUser?: Record<string, unknown>; toUser?: Record<string, unknown> };
  };
  body.account_id = m.accountId;
  const p = body.payload;
  p.id = '__MSG_ID__';
  p.createdAt = m.createdAt;
  p.changedAt = m.createdAt;
  if (m.text !== undefined) p.text = `<p>${m.text}</p>`;
  if (m.fromQueue !== undefined) p.isFromQueue = m.fromQueue;
  const user = m.direction === 'received' ? p.fromUser : p.toUser;
  if (user) user.id = '__FAN_ID__';
  // Ids go in as JSON numbers, exactly as the platform sends them, even beyond 2^53.
  return JSON.stringify(body).replace('"__MSG_ID__"', String(m.messageId)).replace('"__FAN_ID__"', String(m.fanId));
}

export interface PostResult {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

export async function postWebhook(baseUrl: string, raw: string, opts: { secret?: string; signature?: string; key?: string } = {}): Promise<PostResult> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'OnlyFansAPI.com/Webhook-Client' };
  const signature = opts.signature ?? (opts.secret ? signBody(opts.secret, raw) : undefined);
  if (signature) headers.signature = signature;
  if (opts.key) headers['x-ofapi-idempotency-key'] = opts.key;
  const res = await fetch(`${baseUrl}/webhooks/platform`, { method: 'POST', headers, body: raw });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export async function getJson<T = Record<string, unknown>>(baseUrl: string, path: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${baseUrl}${path}`);
  return { status: res.status, body: (await res.json()) as T };
}
