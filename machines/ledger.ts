// Dedupe with no window: which inputs a chat has already taken in. The platform redelivers
// with the original idempotency key for days, the connector and backfill re-send messages under
// other keys, so an input is known by its key and by its message or payment id. The ids live
// in the state store beside the chat's state (src/processor/chat-ledger.ts), not in the
// machine's context, so a chat's memory stays bounded however long it runs; this module is the
// pure rule that decides, given what is known.
import type { ChatAttributionInput, ChatInput } from './chat-input.js';

export interface KnownId {
  /** A human message recorded without a chatter: a copy that names one attributes it. */
  readonly unattributed: boolean;
}

export interface Remembered {
  readonly id: string;
  readonly unattributed: boolean;
}

export type Admission =
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'admit'; readonly input: ChatInput; readonly remember: readonly Remembered[] };

export const keyId = (dedupeKey: string): string => `k:${dedupeKey}`;
export const messageId = (id: string): string => `m:${id}`;
export const paymentId = (id: string): string => `p:${id}`;

/** The ids an input is known by; inputs that change nothing when repeated have none. */
export function idsOf(input: ChatInput): string[] {
  switch (input.type) {
    // A settle record raises the watermark; raising it again changes nothing: no id to remember.
    case 'chat.tick':
    case 'chat.settle':
    case 'chat.presence':
    case 'chat.skipped':
      return [];
    case 'chat.message':
      return [keyId(input.dedupeKey), messageId(input.messageId)];
    case 'chat.payment':
      return [keyId(input.dedupeKey), paymentId(input.paymentId)];
    default:
      return [keyId(input.dedupeKey)];
  }
}

export function admit(input: ChatInput, known: (id: string) => KnownId | undefined): Admission {
  const ids = idsOf(input);
  if (ids.length === 0) return { kind: 'admit', input, remember: [] };
  const [key, other] = ids as [string, string | undefined];
  if (known(key)) return { kind: 'duplicate' };
  if (input.type === 'chat.message') {
    const seen = known(other as string);
    if (seen) {
      if (!seen.unattributed || input.chatterId === null || input.sender !== 'human') return { kind: 'duplicate' };
      const attribution: ChatAttributionInput = {
        type: 'chat.attribution', dedupeKey: input.dedupeKey, at: input.at, messageId: input.messageId, chatterId: input.chatterId,
        ...(input.receivedAt !== undefined ? { receivedAt: input.receivedAt } : {}),
      };
      return { kind: 'admit', input: attribution, remember: [{ id: key, unattributed: false }, { id: other as string, unattributed: false }] };
    }
    return { kind: 'admit', input, remember: [{ id: key, unattributed: false }, { id: other as string, unattributed: input.sender === 'human' && input.chatterId === null }] };
  }
  if (other !== undefined && known(other)) return { kind: 'duplicate' };
  return { kind: 'admit', input, remember: ids.map((id) => ({ id, unattributed: false })) };
}

/** An in-memory ledger: for tests, benchmarks and anything that runs a chat without a store. */
export class MemoryLedger {
  private readonly ids = new Map<string, KnownId>();

  admit(input: ChatInput): ChatInput | null {
    const a = admit(input, (id) => this.ids.get(id));
    if (a.kind === 'duplicate') return null;
    for (const r of a.remember) this.ids.set(r.id, { unattributed: r.unattributed });
    return a.input;
  }
}
