// What the sender and converter attribution models (credit-models.ts) keep per chat, and what
// they say of a payment: types only, so the chat's context and the event catalogue can name
// them without importing the models' code.
import type { PaymentKind } from './chat-input.js';

/** Why a model credited whom it did: the answer a manager gets to "why this chatter?". */
export type CreditRule =
  /** The last human message to the fan at or before the payment, within the lookback. */
  | 'last-message'
  /** The chatter who sent the PPV the payment bought (the unlock nearest the payment names it). */
  | 'ppv-sender'
  /** The PPV bought was a mass or automated send: credited to no chatter. */
  | 'campaign'
  /** No human message within the lookback: credited to no chatter. */
  | 'none';

export interface ModelCredit {
  readonly chatterId: string | null;
  /** The message the credit rests on (the last human message, or the PPV bought). */
  readonly messageId: string | null;
  readonly rule: CreditRule;
}

export interface ModelCredits {
  readonly sender: ModelCredit;
  readonly converter: ModelCredit;
}

export interface LedgerSend {
  readonly at: number;
  readonly messageId: string;
  readonly chatterId: string | null;
  /** A human send not from a queue: what the converter credits. */
  readonly direct: boolean;
  /** Priced and not said free: what an unlock may name. */
  readonly ppv: boolean;
}

export interface LedgerPayment {
  readonly at: number;
  readonly paymentId: string;
  readonly kind: PaymentKind;
  /** What the payment came to: the unlock showing the same amount is the one it matches first. */
  readonly grossCents: number;
  readonly credits: ModelCredits | null;
}

/** What the models need of a chat's history, kept with the chat's state and pruned by its watermark. */
export interface CreditLedger {
  /** Sends ascending by (time, id): direct ones a payment within reach may still credit, and recent PPVs. */
  readonly sends: readonly LedgerSend[];
  /** PPV unlocks naming a message of this chat, near enough to a payment to come to match it. */
  readonly unlocks: readonly { readonly at: number; readonly messageId: string; /** The amount its text showed, when readable. */ readonly amountCents?: number | null }[];
  /** Payments whose credits a record still to come may move. */
  readonly payments: readonly LedgerPayment[];
}
