// What is stored for alert hooks: the destinations admins register (`alert_hooks`) and one
// delivery per transition and hook (`alert_hook_deliveries`), which carries its own retry
// schedule, so a restart picks up exactly where the last process stopped.
import type { Doc } from '../adapters/store/store.js';
import type { AlertTransition } from '../pipeline/alert-doc.js';

export const HOOKS_COLLECTION = 'alert_hooks';
export const DELIVERIES_COLLECTION = 'alert_hook_deliveries';

export type HookFormat = 'standard' | 'slack';
export type HookStatus = 'active' | 'disabled';

export interface HookDoc extends Doc {
  readonly url: string;
  readonly events: readonly AlertTransition[];
  /** Only alerts of these accounts; null: every alert, those tied to no account included. */
  readonly accountIds: readonly string[] | null;
  readonly format: HookFormat;
  /** `whsec_` + base64 of the signing key. Kept to sign; never shown after the create answer. */
  readonly secret: string;
  status: HookStatus;
  disabledAt: number | null;
  disabledBecause: string | null;
  readonly createdAt: number;
  readonly createdBy: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'dropped';

export interface DeliveryDoc extends Doc {
  readonly hookId: string;
  /** The transition's webhook-id, the same on every attempt. */
  readonly eventId: string;
  readonly event: AlertTransition;
  readonly alertId: string;
  /** The alert's account (null: tied to none), so purging an account removes what was queued about it. */
  readonly accountId: string | null;
  /** When the alert changed (the event's timestamp). */
  readonly transitionAt: number;
  /** The exact bytes sent on every attempt (the signature covers them). */
  readonly body: string;
  readonly createdAt: number;
  status: DeliveryStatus;
  attempts: number;
  /** When the next attempt is due; while one runs, the end of its lease (a crashed sender's attempt is made again then). */
  nextAttemptAt: number | null;
  lastAttemptAt: number | null;
  /** The receiver's HTTP status on the last attempt; null when none came (refused, timeout, network). */
  lastHttpStatus: number | null;
  lastError: string | null;
  doneAt: number | null;
  /** The round of the dispatcher that claimed its current attempt. */
  claim?: string;
}
