// convops reads only what this version writes. Data written by the development builds before
// 0.1.0 (chat states from before event time, the unanswered limit or the session chart; an
// embedded log folder from before each topic had its own environment) is not upgraded: the
// piece that reads it refuses it with this error, naming what it found, the format it reads,
// and what to do. Nothing is written, skipped or overwritten on its account: a processor round
// that meets such a chat state fails whole and comes again (never set aside, as it is no
// record's fault; ../pipeline/repeat-failures.ts), and an embedded log folder in the old layout
// stops the start. See "Stored formats" in docs/operations.md.

/** Stored data in a format this version does not read; the message says what to do. */
export class StoredFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoredFormatError';
  }
}
