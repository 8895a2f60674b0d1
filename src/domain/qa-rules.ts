// Quality rules over a chatter's reply: pure functions of the text the messages read model
// already keeps (no other copy of it is made), so the report buckets count them per chatter as
// a fold, and a session lists them by reading its messages. Each names the rule that fired and
// what in the text made it fire. The patterns are linear (test/security/regex-linear.test.ts).
//
// off-platform-contact: a link off the platform, or a named messaging app: the fan is led
// where the agency cannot see or earn. off-platform-payment: a named payment app, crypto, or a
// $cashtag: money that the platform (and the agency's commission) never sees.

/** `banned-phrase` is the account's own list (domain/banned-phrases.ts), judged when the reply is received, not here. */
export type QaRule = 'off-platform-contact' | 'off-platform-payment' | 'banned-phrase';

export interface QaFlag {
  readonly rule: QaRule;
  /** The words that made it fire (at most 80 characters). */
  readonly match: string;
}

const LINK = /\b(?:https?:\/\/|www\.)([a-z0-9.-]{1,253})/gi;
const APPS = /\b(snapchat|snap me|add me on snap|telegram|t\.me|whatsapp|instagram|insta|kik|discord|signal app|wechat|line id)\b/i;
const PAYMENTS = /\b(cash ?app|venmo|paypal|zelle|apple pay|google pay|bitcoin|btc|usdt|crypto|wire transfer|gift ?card)\b/i;
const CASHTAG = /(?:^|\s)(\$[a-z][a-z0-9_]{2,19})\b/i;
/** The platform's own links are where the fan should be. */
const PLATFORM_HOSTS = ['onlyfans.com', 'www.onlyfans.com'];

const clip = (s: string): string => s.slice(0, 80);

export function qaFlags(text: string): QaFlag[] {
  const out: QaFlag[] = [];
  for (const m of text.matchAll(LINK)) {
    const host = (m[1] ?? '').toLowerCase().replace(/\.$/, '');
    if (!PLATFORM_HOSTS.includes(host) && !host.endsWith('.onlyfans.com')) {
      out.push({ rule: 'off-platform-contact', match: clip(m[0]) });
      break;
    }
  }
  if (out.length === 0) {
    const app = APPS.exec(text);
    if (app) out.push({ rule: 'off-platform-contact', match: clip(app[0]) });
  }
  const pay = PAYMENTS.exec(text) ?? CASHTAG.exec(text);
  if (pay) out.push({ rule: 'off-platform-payment', match: clip((pay[1] ?? pay[0]).trim()) });
  return out;
}
