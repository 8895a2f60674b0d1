// Dedupe with no window: which inputs a chat has already taken in. The platform redelivers
// with the original idempotency key for days, the connector and backfill re-send messages under
// other keys. A message or payment is known by its own id, which every copy carries whatever its
// key (a redelivery's body is the one first sent), so one entry recognises all of them; any
// other input is known by its key. The ids live
// in the state store beside the chat's state (src/processor/chat-ledger.ts), not in the
// machine's context, so a chat's memory stays bounded however long it runs; this module is the
// pure rule that decides, given what is known.
import type { ChatAttributionInput, ChatInput, ChatMessageInput } from './chat-input.js';
import { sendFacts } from './session-events.js';

export interface KnownId {
  /** A human message recorded without a chatter: a copy that names one attributes it. */
  readonly unattributed: boolean;
  /** A send recorded without its send facts (sendsFacts()): a copy that has them brings them. */
  readonly bare: boolean;
}

export interface Remembered {
  readonly id: string;
  readonly unattributed: boolean;
  readonly bare: boolean;
}

export type DedupeVerdict =
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'admit'; readonly input: ChatInput; readonly remember: readonly Remembered[] };

export const keyId = (dedupeKey: string): string => `k:${dedupeKey}`;
export const messageId = (id: string): string => `m:${id}`;
export const paymentId = (id: string): string => `p:${id}`;

/**
 * The ids an input is known by; inputs that change nothing when repeated have none. One id at
 * most: each is a document to read and write per record (src/processor/chat-ledger.ts).
 */
export function idsOf(input: ChatInput): string[] {
  switch (input.type) {
    // A settle record raises the watermark; raising it again changes nothing: no id to remember.
    case 'chat.tick':
    case 'chat.settle':
    case 'chat.presence':
    case 'chat.skipped':
      return [];
    case 'chat.message':
      return [messageId(input.messageId)];
    case 'chat.payment':
      return [paymentId(input.paymentId)];
    default:
      return [keyId(input.dedupeKey)];
  }
}

/**
 * Whether a copy of a send says what the platform said of it: its price, whether it is free,
 * the queue it came from. The webhook's copy does; the connector's does not (price 0, neither
 * of the others). A fan's message has none to say.
 */
function sendsFacts(m: ChatMessageInput): boolean {
  return m.sender !== 'fan' && (m.isFree !== undefined || m.queueId !== undefined || m.priceCents !== 0);
}

export function dedupe(input: ChatInput, known: (id: string) => KnownId | undefined): DedupeVerdict {
  const [id] = idsOf(input);
  if (id === undefined) return { kind: 'admit', input, remember: [] };
  const seen = known(id);
  if (input.type === 'chat.message') {
    if (!seen) {
      const unattributed = input.sender === 'human' && input.chatterId === null;
      const bare = input.sender !== 'fan' && !sendsFacts(input);
      return { kind: 'admit', input, remember: [{ id, unattributed, bare }] };
    }
    // A later copy adds what the first lacked: the chatter of a human message taken in without
    // one, the send facts of a send taken in without them, or both in one input. Else it is a duplicate.
    const names = seen.unattributed && input.sender === 'human' && input.chatterId !== null;
    const brings = seen.bare && sendsFacts(input);
    if (!names && !brings) return { kind: 'duplicate' };
    const attribution: ChatAttributionInput = {
      type: 'chat.attribution', dedupeKey: input.dedupeKey, at: input.at, messageId: input.messageId, chatterId: names ? input.chatterId : null,
      ...(brings ? { priceCents: input.priceCents, ...sendFacts(input) } : {}),
      ...(input.receivedAt !== undefined ? { receivedAt: input.receivedAt } : {}),
    };
    return { kind: 'admit', input: attribution, remember: [{ id, unattributed: seen.unattributed && !names, bare: seen.bare && !brings }] };
  }
  if (seen) return { kind: 'duplicate' };
  return { kind: 'admit', input, remember: [{ id, unattributed: false, bare: false }] };
}
