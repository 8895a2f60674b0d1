// Reads webhook deliveries into the reference model's facts. Deliberately loose and separate
// from src/domain (the normaliser is part of what is checked): it knows only the few fields
// of the platform's bodies that carry meaning for the figures.
import type { Fact } from './reference-model.js';

type Obj = Record<string, any>;

const cents = (dollars: unknown): number => Math.round(Number(dollars) * 100);

/** Ids longer than a double can hold become strings before parsing. */
function parse(body: string): Obj {
  return JSON.parse(body.replace(/("id"\s*:\s*)(\d{16,})/g, '$1"$2"')) as Obj;
}

export function factOf(body: string): Fact | null {
  const b = parse(body);
  const p = b.payload as Obj | undefined;
  if (!p) return null;
  const account = String(b.account_id);
  const at = typeof p.createdAt === 'string' ? Date.parse(p.createdAt) : Date.parse(`${String(p.created_at).replace(' ', 'T')}Z`);
  const spend = p.fanData?.spending?.total;
  const reported = typeof spend === 'number' ? { spend: cents(spend) } : {};
  switch (b.event) {
    case 'messages.received':
      return { kind: 'message', account, chat: String(p.fromUser.id), id: String(p.id), at, sender: 'fan', chatter: null, ...reported };
    case 'messages.sent':
      return { kind: 'message', account, chat: String(p.toUser.id), id: String(p.id), at, sender: p.isFromQueue === true ? 'automated' : 'human', chatter: null, ...reported };
    case 'transactions.new':
      return { kind: 'payment', account, chat: String(p.fan?.id ?? p.user?.id), id: String(p.id), at, cents: cents(p.amount), ...reported };
    default:
      return null;
  }
}

export function factsOf(bodies: readonly string[]): Fact[] {
  return bodies.flatMap((b) => factOf(b) ?? []);
}
