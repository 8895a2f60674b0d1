// When a failed delivery is tried again: exponential backoff with "equal jitter" (half the
// delay fixed, half random), so below the cap a gap is never shorter than the one before, while a crowd of
// failing deliveries does not retry in step; and when it is given up: not before the retry
// window (an hour by default) has passed since the transition.

export interface RetryPolicy {
  /** The delay before the second attempt, before jitter. */
  readonly baseMs: number;
  /** No delay grows past this. */
  readonly maxDelayMs: number;
  /** Attempts go on at least this long after the first. */
  readonly windowMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseMs: 5_000, maxDelayMs: 10 * 60_000, windowMs: 60 * 60_000 };

/** The delay after failed attempt number `attempts` (1-based); `random` in [0, 1). */
export function retryDelayMs(policy: RetryPolicy, attempts: number, random: number): number {
  const full = Math.min(policy.maxDelayMs, policy.baseMs * 2 ** Math.min(30, Math.max(0, attempts - 1)));
  return Math.round(full / 2 + (full / 2) * random);
}

/** The time of the next attempt, or null: the window is over, give up. */
export function nextAttemptAt(policy: RetryPolicy, createdAt: number, attempts: number, now: number, random: number): number | null {
  if (now - createdAt >= policy.windowMs) return null;
  return now + retryDelayMs(policy, attempts, random);
}
