// The conversion report: which messages make money. Per chatter and per account, a chatter's
// direct work (human sends not from a queue) against the PPVs among it and their unlocks, and
// per campaign (a queue's sends; automated sends from no queue as one more) what it reached and
// sold. One window read of the report buckets, like every other report: a count here is the
// same fold the buckets hold, whatever the history.
//
// Which time places what (contributions.ts): a send, when it was sent; an unlock and the
// PPV's price as revenue, when it was unlocked. So a window's unlock ratio is unlocks in it
// over PPVs sent in it, as the agency tools count it (and can pass 100% in a short window).
import type { Filter } from '../adapters/store/store.js';
import { percent } from '../domain/percentiles.js';
import type { ReadModelCollections } from './read-model-set.js';
import { campaignIdOf, chatterIdOf, chatterKey } from './report-buckets/keys.js';
import { ReportQueries, type ReportWindow } from './report-buckets/queries.js';
import { HistogramSet } from './report-buckets/histogram.js';
import { DistinctKeys } from './report-buckets/distinct-keys.js';
import type { ConversionWindow } from './report-buckets/window-sums.js';
import type { CreditModel } from './payments/projection.js';
import { shiftCreditOf, type ShiftCredit } from './shift-credits.js';

export interface ConversionFigures {
  /** Human sends not from a queue (the PPVs among them included). */
  readonly directMessages: number;
  /** Distinct fans the direct messages went to (a fan of two accounts counts once per account). */
  readonly fansChatted: number;
  readonly directPpvsSent: number;
  /** Direct PPVs sent ÷ direct messages, in percent (one decimal); null with no direct message. */
  readonly goldenRatioPct: number | null;
  readonly ppvsUnlocked: number;
  /** PPVs unlocked ÷ direct PPVs sent, in percent; null with none sent. */
  readonly unlockRatioPct: number | null;
  /** The prices of the PPVs unlocked (as their sends said). */
  readonly ppvRevenueCents: number;
  /** Revenue credited to the chatter (by payment, as the scorecard credits it). */
  readonly revenueCents: number;
  /** Credited revenue ÷ direct messages, in cents (rounded); null with no direct message. */
  readonly revenuePerDirectMessageCents: number | null;
  readonly medianPpvPriceCents: number | null;
  /** Whole minutes from a PPV's send to its unlock (nearest rank); null with none unlocked. */
  readonly medianMinutesToUnlock: number | null;
}

export interface ChatterConversion extends ConversionFigures {
  /** null: human sends the platform named no chatter for (webhooks carry none; the connector does). */
  readonly chatterId: string | null;
  /** Direct replies in the window each quality rule fired on (domain/qa-rules.ts). */
  readonly qaFlags: { readonly offPlatformContact: number; readonly offPlatformPayment: number; readonly bannedPhrase: number };
}

export interface AccountConversion extends ConversionFigures {
  readonly accountId: string;
  /** Unlocks whose notification names no PPV of its chat (no readable link, or another fan's chat): counted, linked to no send. */
  readonly unlinkedUnlocks: number;
  /** Unlocks of PPVs convops never saw sent (a send before convops, or one lost upstream). */
  readonly unseenSendUnlocks: number;
}

export interface CampaignConversion {
  readonly accountId: string;
  /** The platform's queue id; null: automated sends from no queue. */
  readonly campaignId: string | null;
  /** Sends (one per fan reached). */
  readonly fansReached: number;
  readonly ppvsSent: number;
  readonly unlocks: number;
  /** Unlocks ÷ PPVs sent, in percent; null with none sent. */
  readonly unlockRatePct: number | null;
  readonly revenueCents: number;
}

export interface ConversionReport {
  readonly chatters: ChatterConversion[];
  readonly accounts: AccountConversion[];
  readonly campaigns: CampaignConversion[];
}

interface Acc {
  direct: number;
  qaContact: number;
  qaPayment: number;
  qaBanned: number;
  ppvSent: number;
  unlocked: number;
  ppvRevenueCents: number;
  revenueCents: number;
  readonly price: HistogramSet;
  readonly unlockMin: HistogramSet;
  /** The fans chatted, per account (fan keys are a chat's id, unique within its account). */
  readonly fans: Map<string, DistinctKeys>;
}

const empty = (): Acc => ({ direct: 0, qaContact: 0, qaPayment: 0, qaBanned: 0, ppvSent: 0, unlocked: 0, ppvRevenueCents: 0, revenueCents: 0, price: new HistogramSet(), unlockMin: new HistogramSet(), fans: new Map() });

/** Adds a chatter's window; with `accountId`, its fans too (an account's come from its own set). */
function take(into: Acc, c: ConversionWindow, accountId?: string): void {
  if (accountId !== undefined) {
    let fans = into.fans.get(accountId);
    if (!fans) {
      fans = new DistinctKeys();
      into.fans.set(accountId, fans);
    }
    fans.addAll(c.fans);
  }
  into.direct += c.counts.direct ?? 0;
  into.qaContact += c.counts.qaOffPlatformContact ?? 0;
  into.qaPayment += c.counts.qaOffPlatformPayment ?? 0;
  into.qaBanned += c.counts.qaBannedPhrase ?? 0;
  into.ppvSent += c.counts.ppvSent ?? 0;
  into.unlocked += c.counts.unlocked ?? 0;
  into.ppvRevenueCents += c.counts.ppvRevenueCents ?? 0;
  into.price.addAll(c.price);
  into.unlockMin.addAll(c.unlockMin);
}

function figures(a: Acc): ConversionFigures {
  return {
    directMessages: a.direct,
    fansChatted: [...a.fans.values()].reduce((n, f) => n + f.size, 0),
    directPpvsSent: a.ppvSent,
    goldenRatioPct: percent(a.ppvSent, a.direct),
    ppvsUnlocked: a.unlocked,
    unlockRatioPct: percent(a.unlocked, a.ppvSent),
    ppvRevenueCents: a.ppvRevenueCents,
    revenueCents: a.revenueCents,
    revenuePerDirectMessageCents: a.direct === 0 ? null : Math.round(a.revenueCents / a.direct),
    medianPpvPriceCents: a.price.percentile(50),
    medianMinutesToUnlock: a.unlockMin.percentile(50),
  };
}

const hasWork = (a: Acc): boolean => a.direct + a.ppvSent + a.unlocked > 0;

/** The model credit is asked under; `shift` names the idle time that ends a clocked interval. */
export type Attribution = CreditModel | { readonly model: 'shift'; readonly idleMs: number };

/** The `shift` model's credit of the window, read once; null for the models the buckets keep. */
export const shiftCreditFor = (rm: ReadModelCollections, a: Attribution, w: ReportWindow, inScope: Filter, now: number): Promise<ShiftCredit | null> =>
  typeof a === 'string' ? Promise.resolve(null) : shiftCreditOf(rm, w, inScope, a.idleMs, now);

/**
 * `shiftRead`: the `shift` model's credit of the same window, when the caller has it read already.
 * `fans: false` for a caller that does not show fans chatted (it then reads 0): the fan sets are
 * most of what a long window reads.
 */
export async function conversionOf(
  rm: ReadModelCollections, w: ReportWindow, inScope: Filter, now: number, model: Attribution = 'session', shiftRead: Promise<ShiftCredit | null> = shiftCreditFor(rm, model, w, inScope, now),
  fans = true,
): Promise<ConversionReport> {
  const [sums, shift] = await Promise.all([new ReportQueries(rm).window(w, inScope, fans ? ['conversion', 'payments', 'fans'] : ['conversion', 'payments'], now), shiftRead]);
  const bucketModel = typeof model === 'string' ? model : null;
  const chatters = new Map<string, Acc>();
  const accounts: AccountConversion[] = [];
  const campaigns: CampaignConversion[] = [];
  for (const [accountId, s] of [...sums.byAccount].sort(([a], [b]) => a.localeCompare(b))) {
    const account = empty();
    for (const [key, c] of s.conv) {
      const row = chatters.get(key) ?? empty();
      take(row, c, accountId);
      take(account, c);
      chatters.set(key, row);
    }
    account.fans.set(accountId, s.directFans);
    // Credited revenue only of chatters with direct work in the window: revenue per message is
    // of the messages, and a chatter who sent none has no ratio to show.
    if (bucketModel !== null) {
      for (const [key, c] of s.chatters) {
        const row = chatters.get(key);
        if (row) row.revenueCents += c.credit[bucketModel].revenueCents;
      }
    }
    for (const [chatterId, c] of shift?.get(accountId) ?? []) {
      const row = chatters.get(chatterKey(chatterId));
      if (row) row.revenueCents += c.revenueCents;
    }
    account.revenueCents = s.count('revenueCents');
    const unlinkedUnlocks = s.count('ppvUnlinkedUnlocks');
    const unseenSendUnlocks = s.count('ppvUnseenUnlocks');
    if (hasWork(account) || account.revenueCents > 0 || unlinkedUnlocks + unseenSendUnlocks > 0) accounts.push({ accountId, ...figures(account), unlinkedUnlocks, unseenSendUnlocks });
    for (const [key, c] of s.camp) {
      const sent = c.counts.sent ?? 0;
      const ppvsSent = c.counts.ppvSent ?? 0;
      const unlocks = c.counts.unlocked ?? 0;
      if (sent + unlocks === 0) continue;
      campaigns.push({ accountId, campaignId: campaignIdOf(key), fansReached: sent, ppvsSent, unlocks, unlockRatePct: percent(unlocks, ppvsSent), revenueCents: c.counts.ppvRevenueCents ?? 0 });
    }
  }
  const rows = [...chatters].filter(([, a]) => hasWork(a)).map(([key, a]): ChatterConversion => ({
    chatterId: chatterIdOf(key), ...figures(a), qaFlags: { offPlatformContact: a.qaContact, offPlatformPayment: a.qaPayment, bannedPhrase: a.qaBanned },
  }));
  // The most credited revenue per direct message first: the ranking agencies coach by.
  rows.sort((a, b) => (b.revenuePerDirectMessageCents ?? -1) - (a.revenuePerDirectMessageCents ?? -1) || (a.chatterId ?? '\uffff').localeCompare(b.chatterId ?? '\uffff'));
  campaigns.sort((a, b) => b.revenueCents - a.revenueCents || a.accountId.localeCompare(b.accountId) || (a.campaignId ?? '').localeCompare(b.campaignId ?? ''));
  return { chatters: rows, accounts, campaigns };
}

/** One local day of the money figures, summed over the accounts in scope. */
export interface ConversionDay {
  /** The local date (YYYY-MM-DD in the report's time zone). */
  readonly day: string;
  readonly from: number;
  readonly to: number;
  readonly directMessages: number;
  readonly directPpvsSent: number;
  readonly ppvsUnlocked: number;
  readonly ppvRevenueCents: number;
  readonly campaignUnlocks: number;
  readonly campaignRevenueCents: number;
  readonly revenueCents: number;
}

/** The figures of each [from, to) of `days` (local days), each the report of that window. */
export async function conversionByDay(rm: ReadModelCollections, days: readonly { day: string; from: number; to: number }[], inScope: Filter, now: number, model: Attribution = 'session'): Promise<ConversionDay[]> {
  return Promise.all(days.map(async ({ day, from, to }) => {
    const r = await conversionOf(rm, { from, to }, inScope, now, model, undefined, false);
    const sum = (f: (a: AccountConversion) => number) => r.accounts.reduce((n, a) => n + f(a), 0);
    const camp = (f: (c: CampaignConversion) => number) => r.campaigns.reduce((n, c) => n + f(c), 0);
    return {
      day, from, to,
      directMessages: sum((a) => a.directMessages), directPpvsSent: sum((a) => a.directPpvsSent), ppvsUnlocked: sum((a) => a.ppvsUnlocked),
      ppvRevenueCents: sum((a) => a.ppvRevenueCents), campaignUnlocks: camp((c) => c.unlocks), campaignRevenueCents: camp((c) => c.revenueCents),
      revenueCents: sum((a) => a.revenueCents),
    };
  }));
}
