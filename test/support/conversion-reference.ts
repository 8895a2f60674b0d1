// The conversion report (docs/api.md, "Money") as plain functions over what happened: sends,
// unlock notifications and credited payments, each as the platform would tell it. Written from
// the definitions, not from the read model or the buckets: it imports nothing from src/ or
// machines/, keeps every fact in a list and scans it for every window, slowly and plainly.

export interface SendFact {
  readonly kind: 'send';
  readonly account: string;
  readonly chat: string;
  readonly id: string;
  readonly at: number;
  /** The chatter the connector named; null: only the webhook copy (no chatter). */
  readonly chatter: string | null;
  /** The queue a mass message came from; null: a direct send by a human. */
  readonly queue: string | null;
  /** 0: free. */
  readonly priceCents: number;
  /** Which quality rules its text breaks (as the generator wrote it: the test's own table, not the rules' code). */
  readonly qa: { readonly contact: boolean; readonly payment: boolean; readonly banned: boolean };
}

export interface UnlockFact {
  readonly kind: 'unlock';
  readonly account: string;
  readonly chat: string;
  /** The notification's own id. */
  readonly ref: string;
  /** Whole minutes, as the platform stamps notifications. */
  readonly at: number;
  /** The chat link's message id and the chat it opens; null: no link. */
  readonly link: { readonly id: string; readonly chat: string } | null;
  readonly amountCents: number;
}

/** A payment, with the chatter the session rules credit it to (report-reference's reading). */
export interface CreditedPayment {
  readonly account: string;
  readonly chat: string;
  readonly at: number;
  readonly cents: number;
  /** A PPV purchase (the platform's `message` transaction); else a tip. */
  readonly ppv: boolean;
  readonly chatter: string | null;
}

export type Model = 'session' | 'sender' | 'converter';

const DAY = 86_400_000;
/** How far apart a PPV purchase and the unlock that names its PPV may be (docs/api.md). */
const MATCH = 10 * 60_000;

/** The converter's chatter: the last direct message to the fan at or before the payment, within a day (by time, then id). */
function converterOf(sends: readonly SendFact[], p: CreditedPayment): string | null {
  const before = sends.filter((s) => s.account === p.account && s.chat === p.chat && s.queue === null && s.at <= p.at && p.at - s.at <= DAY);
  before.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1));
  return before.at(-1)?.chatter ?? null;
}

/** The sender's chatter: of a PPV purchase, whoever sent the PPV the nearest unlock names (of those showing the payment's amount, if any do); else the converter's. */
function senderOf(sends: readonly SendFact[], unlocks: readonly UnlockFact[], p: CreditedPayment): string | null {
  if (!p.ppv) return converterOf(sends, p);
  const within = unlocks.filter((u) => u.account === p.account && u.chat === p.chat && u.link !== null && u.link.chat === u.chat && Math.abs(u.at - p.at) <= MATCH);
  const sameAmount = within.filter((u) => u.amountCents === p.cents);
  const near = sameAmount.length > 0 ? sameAmount : within;
  near.sort((a, b) => Math.abs(a.at - p.at) - Math.abs(b.at - p.at) || a.at - b.at || ((a.link?.id ?? '') < (b.link?.id ?? '') ? -1 : 1));
  const bought = near[0] && sends.find((s) => s.account === p.account && s.chat === p.chat && s.id === near[0]?.link?.id);
  if (!bought) return converterOf(sends, p);
  return bought.queue === null ? bought.chatter : null;
}

/** Whom `model` credits the payment to. */
export function creditUnder(model: Model, sends: readonly SendFact[], unlocks: readonly UnlockFact[], p: CreditedPayment): string | null {
  return model === 'session' ? p.chatter : model === 'sender' ? senderOf(sends, unlocks, p) : converterOf(sends, p);
}

export interface Figures {
  directMessages: number;
  fansChatted: number;
  directPpvsSent: number;
  goldenRatioPct: number | null;
  ppvsUnlocked: number;
  unlockRatioPct: number | null;
  ppvRevenueCents: number;
  revenueCents: number;
  revenuePerDirectMessageCents: number | null;
  medianPpvPriceCents: number | null;
  medianMinutesToUnlock: number | null;
}

export interface RefConversion {
  chatters: (Figures & { chatterId: string | null; qaFlags: { offPlatformContact: number; offPlatformPayment: number; bannedPhrase: number } })[];
  accounts: (Figures & { accountId: string; unlinkedUnlocks: number; unseenSendUnlocks: number })[];
  campaigns: { accountId: string; campaignId: string; fansReached: number; ppvsSent: number; unlocks: number; unlockRatePct: number | null; revenueCents: number }[];
}

const pct = (part: number, whole: number): number | null => (whole === 0 ? null : Math.round((part / whole) * 1000) / 10);

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length / 2) - 1] ?? null;
}

interface Sale {
  readonly account: string;
  readonly at: number;
  readonly amountCents: number;
  /** The send it bought; undefined: none linked (no link, or another chat's), or one never sent. */
  readonly send: SendFact | undefined;
  readonly linked: boolean;
}

/** Each sale once: the notifications about one PPV are one sale, stamped by the earliest. */
function salesOf(sends: readonly SendFact[], unlocks: readonly UnlockFact[]): Sale[] {
  const byKey = new Map<string, UnlockFact>();
  for (const u of unlocks) {
    const linked = u.link !== null && u.link.chat === u.chat;
    const key = linked ? `${u.account}|id|${u.link?.id}` : `${u.account}|ref|${u.ref}`;
    const had = byKey.get(key);
    if (!had || u.at < had.at || (u.at === had.at && u.amountCents > had.amountCents)) byKey.set(key, u);
  }
  return [...byKey.values()].map((u) => {
    const linked = u.link !== null && u.link.chat === u.chat;
    const send = linked ? sends.find((s) => s.account === u.account && s.id === u.link?.id) : undefined;
    return { account: u.account, at: u.at, amountCents: u.amountCents, send, linked };
  });
}

export function referenceConversion(sends: readonly SendFact[], unlocks: readonly UnlockFact[], payments: readonly CreditedPayment[], from: number, to: number, model: Model = 'session'): RefConversion {
  const inW = (at: number) => at >= from && at < to;
  const sales = salesOf(sends, unlocks).filter((s) => inW(s.at));
  const direct = sends.filter((s) => s.queue === null && inW(s.at));
  const figures = (ds: readonly SendFact[], ss: readonly Sale[], revenue: number): Figures => {
    const ppvs = ds.filter((s) => s.priceCents > 0);
    return {
      directMessages: ds.length,
      // Fans are chats; the same fan id under two accounts is two fans.
      fansChatted: new Set(ds.map((s) => `${s.account}|${s.chat}`)).size,
      directPpvsSent: ppvs.length,
      goldenRatioPct: pct(ppvs.length, ds.length),
      ppvsUnlocked: ss.length,
      unlockRatioPct: pct(ss.length, ppvs.length),
      ppvRevenueCents: ss.reduce((n, s) => n + (s.send?.priceCents ?? 0), 0),
      revenueCents: revenue,
      revenuePerDirectMessageCents: ds.length === 0 ? null : Math.round(revenue / ds.length),
      medianPpvPriceCents: median(ppvs.map((s) => s.priceCents)),
      medianMinutesToUnlock: median(ss.map((s) => Math.floor(Math.max(0, s.at - (s.send?.at ?? s.at)) / 60_000))),
    };
  };
  const directSales = sales.filter((s) => s.send !== undefined && s.send.queue === null && s.send.priceCents > 0);
  const paid = payments.filter((p) => inW(p.at)).map((p) => ({ ...p, chatter: creditUnder(model, sends, unlocks, p) }));

  const chatterIds = [...new Set([...direct.map((s) => s.chatter), ...directSales.map((s) => s.send?.chatter ?? null)])];
  const chatters = chatterIds.map((chatterId) => ({
    chatterId,
    ...figures(
      direct.filter((s) => s.chatter === chatterId),
      directSales.filter((s) => s.send?.chatter === chatterId),
      chatterId === null ? 0 : paid.filter((p) => p.chatter === chatterId).reduce((n, p) => n + p.cents, 0),
    ),
    qaFlags: {
      offPlatformContact: direct.filter((s) => s.chatter === chatterId && s.qa.contact).length,
      offPlatformPayment: direct.filter((s) => s.chatter === chatterId && s.qa.payment).length,
      bannedPhrase: direct.filter((s) => s.chatter === chatterId && s.qa.banned).length,
    },
  }));
  chatters.sort((a, b) => (b.revenuePerDirectMessageCents ?? -1) - (a.revenuePerDirectMessageCents ?? -1) || (a.chatterId ?? '\uffff').localeCompare(b.chatterId ?? '\uffff'));

  const accountIds = [...new Set([...direct.map((s) => s.account), ...sales.map((s) => s.account), ...paid.map((p) => p.account)])].sort();
  const accounts = accountIds.map((accountId) => ({
    accountId,
    ...figures(
      direct.filter((s) => s.account === accountId),
      directSales.filter((s) => s.account === accountId),
      paid.filter((p) => p.account === accountId).reduce((n, p) => n + p.cents, 0),
    ),
    unlinkedUnlocks: sales.filter((s) => s.account === accountId && !s.linked).length,
    unseenSendUnlocks: sales.filter((s) => s.account === accountId && s.linked && s.send === undefined).length,
  })).filter((a) => a.directMessages + a.directPpvsSent + a.ppvsUnlocked + a.unlinkedUnlocks + a.unseenSendUnlocks + a.revenueCents > 0);

  const queued = sends.filter((s) => s.queue !== null);
  const campaignKeys = new Set<string>();
  for (const s of queued) if (inW(s.at)) campaignKeys.add(`${s.account}|${s.queue}`);
  for (const s of sales) if (s.send?.queue != null) campaignKeys.add(`${s.account}|${s.send.queue}`);
  const campaigns = [...campaignKeys].map((k) => {
    const [accountId, campaignId] = k.split('|') as [string, string];
    const sent = queued.filter((s) => s.account === accountId && s.queue === campaignId && inW(s.at));
    const sold = sales.filter((s) => s.account === accountId && s.send?.queue === campaignId);
    const ppvsSent = sent.filter((s) => s.priceCents > 0).length;
    return {
      accountId, campaignId, fansReached: sent.length, ppvsSent, unlocks: sold.length, unlockRatePct: pct(sold.length, ppvsSent),
      revenueCents: sold.reduce((n, s) => n + (s.send?.priceCents ?? 0), 0),
    };
  });
  campaigns.sort((a, b) => b.revenueCents - a.revenueCents || a.accountId.localeCompare(b.accountId) || a.campaignId.localeCompare(b.campaignId));
  return { chatters, accounts, campaigns };
}
