// A session past its deadline is shown closed for the reason the session chart gave with the
// deadline (closesAs); documents folded from events older than that field fall back to the
// chart's rule (unanswered while the fan waits, idle once answered).
import { describe, expect, it } from 'vitest';
import { shownClose } from '../../src/domain/session-deadline.js';

const open = { status: 'open' as const, closedAt: null, closeReason: null, closesAt: 1_000 };

describe('shownClose', () => {
  it('shows an open session before its deadline as it is', () => {
    expect(shownClose({ ...open, awaiting: true, closesAs: 'unanswered' }, 999)).toEqual({ status: 'open', closedAt: null, closeReason: null });
  });

  it('past its deadline, closes it for the reason the chart gave, not one worked out beside it', () => {
    // The chart's reason wins even where `awaiting` would say otherwise.
    expect(shownClose({ ...open, awaiting: false, closesAs: 'unanswered' }, 1_000)).toEqual({ status: 'closed', closedAt: 1_000, closeReason: 'unanswered' });
    expect(shownClose({ ...open, awaiting: true, closesAs: 'idle' }, 2_000)).toEqual({ status: 'closed', closedAt: 1_000, closeReason: 'idle' });
  });

  it('for a document without the reason, falls back to the chart rule', () => {
    expect(shownClose({ ...open, awaiting: true }, 1_000).closeReason).toBe('unanswered');
    expect(shownClose({ ...open, awaiting: false, closesAs: null }, 1_000).closeReason).toBe('idle');
  });
});
