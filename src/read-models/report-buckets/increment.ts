// What a read-model document adds to one bucket field (contributions.ts says which time places it).
export interface Increment {
  readonly accountId: string;
  /** The time that places it in a bucket; null: the account's live row (open now). */
  readonly at: number | null;
  /** Dotted field path in the bucket document. */
  readonly field: string;
  readonly amount: number;
}
