// Whether a stage's rounds are going through. A consumer whose round fails is handed the same
// records again after a pause, so a failure that repeats (a poisoned record no stage sets aside,
// a store that refuses one write) shows only as lag that grows: this is what health reads to say
// so, naming the stage, the reason and since when.

/** Consecutive failed rounds from which a stage counts as failing (one fenced round is routine). */
export const FAILING_AFTER_ROUNDS = 3;

export interface StageProblem {
  readonly stage: string;
  readonly reason: string;
  readonly since: string;
  readonly consecutiveFailures: number;
}

export class StageHealth {
  private failures = 0;
  private firstFailureAt: number | null = null;
  private lastError = '';

  constructor(readonly stage: string) {}

  succeeded(): void {
    this.failures = 0;
    this.firstFailureAt = null;
    this.lastError = '';
  }

  failed(err: unknown, now = Date.now()): void {
    this.failures++;
    this.firstFailureAt ??= now;
    this.lastError = (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 500);
  }

  /** The problem to report, or null while rounds go through. */
  problem(): StageProblem | null {
    if (this.failures < FAILING_AFTER_ROUNDS || this.firstFailureAt === null) return null;
    return { stage: this.stage, reason: `its rounds keep failing: ${this.lastError}`, since: new Date(this.firstFailureAt).toISOString(), consecutiveFailures: this.failures };
  }
}
