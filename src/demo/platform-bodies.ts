// Platform webhook bodies in their live shapes, for the demo dataset and the tests. The
// templates are trimmed copies of the anonymized live captures in shared/platform/samples.

type Json = Record<string, unknown>;

const fanUser = (id: string, name: string): Json => ({
  view: 's', avatar: null, header: null, id: `__ID_${id}__`, name, username: `u${id}`, displayName: name,
  isVerified: false, canPayInternal: true, subscribedOn: true, subscribedOnExpiredNow: false, canReport: false, lastSeen: null,
});

const fanData = (spendDollars: number, at: string): Json => ({
  available: true, last_updated_at: at, spending: { total: spendDollars, messages: spendDollars, subscribes: 0, posts: 0, tips: 0, streams: 0 }, previous_reply_at: null,
});

/** Ids go in as JSON numbers, as the platform sends them, even beyond 2^53. */
function withNumericIds(body: Json): string {
  return JSON.stringify(body).replace(/"__ID_(\d+)__"/g, '$1');
}

export interface MessageBodySpec {
  readonly accountId: string;
  readonly fanId: string;
  readonly fanName?: string;
  readonly messageId: string;
  readonly createdAt: string;
  readonly text: string;
  readonly direction: 'received' | 'sent';
  readonly priceDollars?: number;
  readonly fromQueue?: boolean;
  /** The queue (mass message) a queued send came from; default: one of its own. */
  readonly queueId?: string;
  readonly fanSpendDollars?: number;
}

export function messageWebhook(m: MessageBodySpec): string {
  const price = m.priceDollars ?? 0;
  const payload: Json = {
    responseType: 'message', text: `<p>${m.text}</p>`, giphyId: null, lockedText: false, isFree: price === 0, price,
    isMediaReady: true, mediaCount: 0, media: [], previews: [], isTip: false, isReportedByMe: false, isCouplePeopleMedia: false,
    queueId: m.fromQueue ? `__ID_${m.queueId ?? `${m.messageId}1`}__` : null, isMarkdownDisabled: true, isFromQueue: m.fromQueue ?? false,
    id: `__ID_${m.messageId}__`, isOpened: false, isNew: true, createdAt: m.createdAt, changedAt: m.createdAt,
    cancelSeconds: 120, isLiked: false, canPurchase: price > 0, canPurchaseReason: price > 0 ? '' : 'free', canReport: true,
    canBePinned: true, isPinned: false,
  };
  const user = fanUser(m.fanId, m.fanName ?? `Fan ${m.fanId}`);
  if (m.direction === 'received') payload.fromUser = user;
  else payload.toUser = user;
  if (m.fanSpendDollars !== undefined) payload.fanData = fanData(m.fanSpendDollars, m.createdAt);
  return withNumericIds({ event: m.direction === 'received' ? 'messages.received' : 'messages.sent', account_id: m.accountId, payload });
}

export interface NotificationSpec {
  readonly accountId: string;
  readonly fanId: string;
  readonly notificationId: string;
  readonly createdAt: string;
  readonly amountDollars: number;
  readonly fanSpendDollars?: number;
  /** The creator's own id: the `user_id` trap, never the fan. */
  readonly creatorId?: string;
  /** A PPV unlock's message: the platform names it only in the chat link (`firstId=`); absent: no link. */
  readonly ppvMessageId?: string;
  /** The chat the link opens (default the fan's own). */
  readonly linkFanId?: string;
}

function notification(n: NotificationSpec, type: string, subType: string, text: string, replacePairs: Json, extra: Json = {}): Json {
  return {
    id: n.notificationId, type, createdAt: n.createdAt, text, replacePairs, subType, user_id: n.creatorId ?? '514788334',
    isRead: false, canGoToProfile: true, user: fanUser(n.fanId, `Fan ${n.fanId}`),
    ...(n.fanSpendDollars !== undefined ? { fanData: fanData(n.fanSpendDollars, n.createdAt) } : {}),
    ...extra,
  };
}

const money = (d: number): string => `$${d.toFixed(2)}`;

export function tipWebhook(n: NotificationSpec): string {
  return withNumericIds({
    event: 'tips.received', account_id: n.accountId,
    payload: notification(n, 'tip', 'new_tips', `paid you a tip of ${money(n.amountDollars)}`, { '{AMOUNT}': money(n.amountDollars) }, { amountGross: n.amountDollars, amountNet: Math.round(n.amountDollars * 80) / 100 }),
  });
}

export function ppvUnlockedWebhook(n: NotificationSpec): string {
  const link = n.ppvMessageId === undefined ? 'your message' : `<a href="https://onlyfans.com/my/chats/chat/${n.linkFanId ?? n.fanId}?firstId=${n.ppvMessageId}">your message</a>`;
  return withNumericIds({
    event: 'messages.ppv.unlocked', account_id: n.accountId,
    payload: notification(n, 'paided_message', 'subscriber_pay_for_chat_message', `purchased ${link}`, { '{NAME}': `Fan ${n.fanId}`, '{MESSAGE_LINK}': link, '{AMOUNT}': money(n.amountDollars) }),
  });
}

export function subscribedWebhook(n: NotificationSpec): string {
  return withNumericIds({
    event: 'subscriptions.new', account_id: n.accountId,
    payload: notification(n, 'subscribed', 'new_subscriber', 'subscribed to your profile', { '{PRICE}': money(n.amountDollars) }),
  });
}

export interface TransactionSpec {
  readonly accountId: string;
  readonly fanId: string;
  readonly transactionId: string;
  /** The platform writes transaction times as "YYYY-MM-DD HH:MM:SS" (UTC). */
  readonly createdAt: string;
  readonly type: 'message' | 'tip' | 'subscription';
  readonly amountDollars: number;
  readonly fanSpendDollars?: number;
}

export function transactionWebhook(t: TransactionSpec): string {
  const fee = Math.round(t.amountDollars * 20) / 100;
  return JSON.stringify({
    event: 'transactions.new', account_id: t.accountId,
    payload: {
      id: t.transactionId, created_at: t.createdAt.replace('T', ' ').replace(/(\.\d+)?(Z|\+00:00)$/, ''), type: t.type, tips_source: null,
      amount: t.amountDollars, vat_amount: 0, tax_amount: 0, net_amount: Math.round((t.amountDollars - fee) * 100) / 100, fee_amount: fee,
      currency: 'USD', description: `Payment from fan ${t.fanId}`, status: 'loading',
      fan: { id: t.fanId, username: `u${t.fanId}`, name: `Fan ${t.fanId}`, display_name: `Fan ${t.fanId}`, avatar: null },
      ...(t.fanSpendDollars !== undefined ? { fanData: fanData(t.fanSpendDollars, t.createdAt) } : {}),
    },
  });
}
