// The rules provider: pure, deterministic checks over a session's facts. Each rule has an id,
// a version, a severity and a reason a manager can read; it yields labels, an alert and a
// recommendation. Alert ids are stable (rule + what it is about), so the same condition seen
// live and stored durably is one alert.
import { cut, stripTags } from '../domain/text-clean.js';
import { gradeOf, isBreach } from '../domain/sla.js';
import { WALL_CLOCK, type WaitClock } from '../domain/business-hours.js';
import { openAt } from '../domain/session-deadline.js';
import { dollars, duration } from '../domain/wording.js';
import type { Finding } from '../pipeline/alert-doc.js';
import { SHIFT_RULES } from './shift-rules.js';

export interface FactMessage {
  readonly messageId: string;
  readonly sender: 'fan' | 'human' | 'automated';
  readonly chatterId: string | null;
  readonly text: string;
  readonly priceCents: number;
  readonly sentAt: number;
}

export interface SessionFacts {
  readonly sessionId: string;
  readonly accountId: string;
  readonly chatId: string;
  readonly status: 'open' | 'closed';
  readonly openedAt: number;
  readonly awaiting: boolean;
  readonly waitingSince: number | null;
  readonly replyCount: number;
  readonly lastHumanChatterId: string | null;
  readonly fanSpendCents: number | null;
  /** When it closes unless something moves it; past it, it is closed to every rule. */
  readonly closesAt?: number | null;
  /** The session's messages, oldest first (may be the latest few only). */
  readonly messages?: readonly FactMessage[];
}

export interface ChatterFacts {
  readonly chatterId: string;
  /** First-response times of the chatter's latest answered sessions, newest first. */
  readonly recentFirstResponseSec: readonly number[];
}

export interface RuleSettings {
  readonly thresholdSec: number;
  readonly vipSpendCents: number;
  readonly vipThresholdSec: number;
  readonly ppvFollowUpSec: number;
  readonly noReplySec: number;
  readonly slowStreak: number;
  /** The shift rules (shift-rules.ts): how long fans may wait with nobody on, the no-show grace, the automatic clock-out. */
  readonly coverageGapSec: number;
  readonly noShowGraceSec: number;
  readonly clockIdleSec: number;
}

export const DEFAULT_RULE_SETTINGS: RuleSettings = {
  thresholdSec: 300,
  vipSpendCents: 10_000,
  vipThresholdSec: 120,
  ppvFollowUpSec: 900,
  noReplySec: 3600,
  slowStreak: 3,
  coverageGapSec: 300,
  noShowGraceSec: 600,
  clockIdleSec: 1800,
};

export interface RuleInfo {
  readonly id: string;
  readonly version: number;
  readonly description: string;
  /** Needs only the session document (no messages, no chatter history): cheap enough to evaluate on every read. */
  readonly live: boolean;
}

export const RULES: readonly RuleInfo[] = [
  { id: 'sla.fan-waiting', version: 1, live: true, description: 'A fan is at risk (has waited at least 80% of the SLA threshold: warning) or breached (waited past it: critical).' },
  { id: 'vip.waiting', version: 1, live: true, description: 'A high-value fan (lifetime spend at or above the VIP level) has waited past the shorter VIP threshold.' },
  { id: 'session.open-no-reply', version: 1, live: true, description: 'A session has been open a long time without any human reply.' },
  { id: 'ppv.no-follow-up', version: 1, live: false, description: 'A pay-per-view message was sent and nothing followed it.' },
  { id: 'language.churn-risk', version: 1, live: false, description: 'The fan used negative or churn-risk language and no human has replied since.' },
  { id: 'chatter.slow-streak', version: 1, live: false, description: "A chatter's latest first responses all missed the SLA." },
  ...SHIFT_RULES,
];

const version = (id: string): number => RULES.find((r) => r.id === id)?.version ?? 1;

// Phrases fans use when they are unhappy or about to leave. Matched on word boundaries,
// case-insensitively; deliberately short and explainable rather than clever.
const CHURN_PHRASES = [
  'unsubscribe', 'unsubscribing', 'cancel', 'cancelling', 'canceling', 'refund', 'scam', 'rip off', 'ripoff', 'waste of money',
  'not worth', 'boring', 'bored', 'disappointed', 'ignored', 'ignoring me', 'never answer', 'no reply', 'leaving', 'goodbye',
  'bye forever', 'expensive', 'too much money', 'fake', 'bot',
];
// Exported for test/security/regex-linear.test.ts, which checks the built pattern is linear.
export const CHURN_PATTERN = new RegExp(`\\b(${CHURN_PHRASES.map((p) => p.replace(/ /g, '\\s+')).join('|')})\\b`, 'i');

export function churnPhrase(text: string): string | null {
  const m = CHURN_PATTERN.exec(stripTags(cut(text), ' '));
  return m?.[1]?.toLowerCase() ?? null;
}

function base(ruleId: string, key: string, s: SessionFacts | null): Pick<Finding, 'alertId' | 'ruleId' | 'ruleVersion' | 'sessionId' | 'accountId' | 'chatId'> {
  return { alertId: `${ruleId}:${key}`, ruleId, ruleVersion: version(ruleId), sessionId: s?.sessionId ?? null, accountId: s?.accountId ?? null, chatId: s?.chatId ?? null };
}

/**
 * Rules about one session. `live` keeps to the rules that need only the session document.
 * `waits` measures how long the fan has waited (the SLA and VIP rules): wall-clock seconds,
 * or, for an account with business hours, the seconds inside them (the caller loads the
 * schedules; the rules stay pure).
 */
export function evaluateSession(s: SessionFacts, now: number, settings: RuleSettings = DEFAULT_RULE_SETTINGS, live = false, waits: WaitClock = WALL_CLOCK): Finding[] {
  const out: Finding[] = [];
  if (!openAt(s, now)) return out;
  const waitSec = waits.waitedSec(s, now);
  const inHours = waits.inBusinessHours(s.accountId) ? ' in business hours' : '';
  const episode = String(s.waitingSince ?? '');
  const grade = waitSec === null ? 'ok' : gradeOf(waitSec, settings.thresholdSec);

  if (waitSec !== null && grade !== 'ok') {
    const breached = grade === 'breached';
    out.push({
      ...base('sla.fan-waiting', `${s.sessionId}:${episode}`, s),
      severity: breached ? 'critical' : 'warning',
      reason: breached
        ? `Fan ${s.chatId} has waited ${duration(waitSec)}${inHours} for a reply, past the ${duration(settings.thresholdSec)} SLA.`
        : `Fan ${s.chatId} has waited ${duration(waitSec)}${inHours}; the ${duration(settings.thresholdSec)} SLA is close.`,
      labels: breached ? ['awaiting-reply', 'sla-breached'] : ['awaiting-reply', 'sla-at-risk'],
      recommendation: 'Reply to this fan now.',
      chatterId: s.lastHumanChatterId,
    });
  }
  if (waitSec !== null && (s.fanSpendCents ?? 0) >= settings.vipSpendCents && waitSec > settings.vipThresholdSec) {
    out.push({
      ...base('vip.waiting', `${s.sessionId}:${episode}`, s),
      severity: 'critical',
      reason: `High-value fan ${s.chatId} (lifetime spend ${dollars(s.fanSpendCents ?? 0)}) has waited ${duration(waitSec)}${inHours}.`,
      labels: ['vip', 'awaiting-reply'],
      recommendation: 'Answer this fan first: they are among the best payers.',
      chatterId: s.lastHumanChatterId,
    });
  }
  const openSec = (now - s.openedAt) / 1000;
  if (s.replyCount === 0 && openSec >= settings.noReplySec) {
    out.push({
      ...base('session.open-no-reply', s.sessionId, s),
      severity: 'warning',
      reason: `Session with fan ${s.chatId} has been open ${duration(openSec)} without a single human reply.`,
      labels: ['no-reply'],
      recommendation: 'Assign this conversation to a chatter.',
      chatterId: null,
    });
  }
  if (live || !s.messages) return out;

  const messages = s.messages;
  const lastPpvIndex = findLastIndex(messages, (m) => m.sender === 'human' && m.priceCents > 0);
  const ppv = lastPpvIndex >= 0 ? messages[lastPpvIndex] : undefined;
  if (ppv && lastPpvIndex === messages.length - 1 && (now - ppv.sentAt) / 1000 >= settings.ppvFollowUpSec) {
    out.push({
      ...base('ppv.no-follow-up', `${s.sessionId}:${ppv.messageId}`, s),
      severity: 'warning',
      reason: `A ${dollars(ppv.priceCents)} pay-per-view message was sent ${duration((now - ppv.sentAt) / 1000)} ago and nothing followed.`,
      labels: ['ppv-pending'],
      recommendation: 'Follow up on the pay-per-view message (a teaser or a softer offer).',
      chatterId: ppv.chatterId,
    });
  }
  const lastHuman = findLastIndex(messages, (m) => m.sender === 'human');
  const negative = messages.map((m, i) => ({ m, i, phrase: m.sender === 'fan' ? churnPhrase(m.text) : null })).filter((x) => x.phrase !== null && x.i > lastHuman);
  const worst = negative[negative.length - 1];
  if (worst) {
    out.push({
      ...base('language.churn-risk', `${s.sessionId}:${worst.m.messageId}`, s),
      severity: 'warning',
      reason: `Fan ${s.chatId} wrote "${worst.phrase}" and has had no human reply since.`,
      labels: ['churn-risk', 'negative-sentiment'],
      recommendation: 'Reassure the fan personally; do not send an offer in the next reply.',
      chatterId: s.lastHumanChatterId,
    });
  }
  return out;
}

export function evaluateChatter(c: ChatterFacts, settings: RuleSettings = DEFAULT_RULE_SETTINGS): Finding[] {
  const recent = c.recentFirstResponseSec.slice(0, settings.slowStreak);
  if (recent.length < settings.slowStreak || !recent.every((f) => isBreach(f, settings.thresholdSec))) return [];
  return [{
    ...base('chatter.slow-streak', c.chatterId, null),
    severity: 'warning',
    reason: `${c.chatterId}'s last ${recent.length} first responses all missed the ${duration(settings.thresholdSec)} SLA (${recent.map(duration).join(', ')}).`,
    labels: ['slow-streak'],
    recommendation: `Check ${c.chatterId}'s load and coach on first responses.`,
    chatterId: c.chatterId,
  }];
}

function findLastIndex<T>(list: readonly T[], test: (t: T) => boolean): number {
  for (let i = list.length - 1; i >= 0; i--) if (test(list[i] as T)) return i;
  return -1;
}
