// The read models' collection names (each stored per version: `sessions_v3`, ...).
export const SESSIONS = 'sessions';
export const MESSAGES = 'messages';
export const PAYMENTS = 'payments';
export const CHATS = 'chats';
export const ACCOUNT_STATS = 'account_stats';
export const PPVS = 'ppvs';
export const REASSIGNMENTS = 'reassignments';
export const CLOCK_INTERVALS = 'clock_intervals';
export const REPORT_BUCKETS = 'report_buckets' as const;
/** Read models folded document by document from events. */
export const READ_MODELS = [SESSIONS, MESSAGES, PAYMENTS, CHATS, ACCOUNT_STATS, PPVS, REASSIGNMENTS, CLOCK_INTERVALS] as const;
export type ReadModel = (typeof READ_MODELS)[number];
/** Every versioned read-model collection: the folded ones and the report buckets derived from their changes. */
export const ALL_READ_MODELS = [...READ_MODELS, REPORT_BUCKETS] as const;
export type ReadModelName = (typeof ALL_READ_MODELS)[number];
