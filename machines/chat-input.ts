// What the session machine consumes: normalised, source-independent facts about one chat.
// Times are record times in epoch milliseconds, never the clock of the machine running it.

export type MessageSender = 'fan' | 'human' | 'automated';

export interface ChatMessageInput {
  readonly type: 'chat.message';
  readonly dedupeKey: string;
  readonly messageId: string;
  readonly sender: MessageSender;
  readonly at: number;
  readonly text: string;
  readonly priceCents: number;
  readonly chatterId: string | null;
}

/** A record the machine keeps in the log but does not act on (unknown kind, malformed, not yet modelled). */
export interface ChatSkippedInput {
  readonly type: 'chat.skipped';
  readonly dedupeKey: string;
  readonly event: string;
  readonly reason: string;
  readonly at: number;
}

export type ChatInput = ChatMessageInput | ChatSkippedInput;
