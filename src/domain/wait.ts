// How long a fan has waited for a reply, and what that means against a first-response SLA
// threshold. The one definition every figure uses (stats, the floor, the rules, session views):
//   breached: waited longer than the threshold;
//   at risk:  waited at least 80% of it, not longer than it (time to act before the breach);
//   ok:       anything shorter.

export const AT_RISK_SHARE = 0.8;

export type WaitState = 'ok' | 'at-risk' | 'breached';

/** Seconds waited at `now`; null when nobody waits. */
export function waitedSec(s: { readonly awaiting: boolean; readonly waitingSince: number | null }, now: number): number | null {
  return s.awaiting && s.waitingSince !== null ? Math.max(0, (now - s.waitingSince) / 1000) : null;
}

export function waitState(waitSec: number, thresholdSec: number): WaitState {
  if (waitSec > thresholdSec) return 'breached';
  if (waitSec >= thresholdSec * AT_RISK_SHARE) return 'at-risk';
  return 'ok';
}
