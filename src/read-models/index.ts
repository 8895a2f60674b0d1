// The read models folded document by document from events, each in its own folder
// (projection.ts: document, fold, indexes; queries.ts: its named queries). The report buckets
// (report-buckets/) are derived from the sessions', messages', payments', PPVs' and clock intervals'
// changes instead.
import { accountStats } from './account-stats/projection.js';
import { chats } from './chats/projection.js';
import { messages } from './messages/projection.js';
import type { ReadModel } from './names.js';
import { payments } from './payments/projection.js';
import { ppvs } from './ppvs/projection.js';
import { reassignments } from './reassignments/projection.js';
import { clockIntervals } from './clock-intervals/projection.js';
import type { AnyProjection } from './projection.js';
import { sessions } from './sessions/projection.js';

/**
 * Every document projection, in the order an event's documents are folded: with several that
 * would throw on a malformed event, the first names the error its set-aside records, and the
 * report-bucket increments of one event follow it (sessions, messages, payments, PPVs). Indexes are
 * created in this order too.
 */
export const PROJECTIONS: readonly AnyProjection[] = [sessions, messages, payments, reassignments, ppvs, chats, clockIntervals, accountStats];

/**
 * The order their writes go to the store, in dependency order: the account totals before the
 * documents they are derived from (as the report buckets), and a session, chat or payment never
 * points at a message not stored yet.
 */
export const WRITE_ORDER: readonly ReadModel[] = [accountStats.name, messages.name, payments.name, reassignments.name, ppvs.name, chats.name, clockIntervals.name, sessions.name];
