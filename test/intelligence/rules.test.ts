// Each rule on crafted sessions: when it fires, when it does not, and what it says.
import { describe, expect, it } from 'vitest';
import { DEFAULT_RULE_SETTINGS, churnPhrase, evaluateChatter, evaluateSession, type FactMessage, type SessionFacts } from '../../src/intelligence/rules.js';

const NOW = Date.parse('2026-06-10T12:00:00Z');
const ago = (sec: number) => NOW - sec * 1000;

function session(extra: Partial<SessionFacts> = {}): SessionFacts {
  return {
    sessionId: 'acct_a:42:1', accountId: 'acct_a', chatId: '42', status: 'open', openedAt: ago(600), awaiting: false,
    waitingSince: null, replyCount: 1, lastHumanChatterId: 'ana', fanSpendCents: 0, ...extra,
  };
}
const msg = (n: number, sender: FactMessage['sender'], secAgo: number, extra: Partial<FactMessage> = {}): FactMessage =>
  ({ messageId: `m${n}`, sender, chatterId: sender === 'human' ? 'ana' : null, text: 'hello', priceCents: 0, sentAt: ago(secAgo), ...extra });
const ids = (s: SessionFacts) => evaluateSession(s, NOW).map((f) => f.ruleId);

describe('rules', () => {
  it('sla.fan-waiting: nothing under 80% of the threshold, a warning near it, critical past it', () => {
    expect(ids(session({ awaiting: true, waitingSince: ago(200) }))).toEqual([]);
    const waiting = session({ awaiting: true, waitingSince: ago(400) });
    const near = evaluateSession(waiting, NOW - 150_000);
    expect(near).toMatchObject([{ ruleId: 'sla.fan-waiting', severity: 'warning', labels: ['awaiting-reply', 'sla-at-risk'] }]);
    const past = evaluateSession(waiting, NOW);
    expect(past).toMatchObject([{ ruleId: 'sla.fan-waiting', severity: 'critical', chatterId: 'ana' }]);
    expect(past[0]?.reason).toBe('Fan 42 has waited 6m 40s for a reply, past the 5m 00s SLA.');
    // The same waiting episode keeps one id as it worsens, so live and stored collide.
    expect(near[0]?.alertId).toBe(past[0]?.alertId);
    expect(ids(session({ awaiting: true, waitingSince: ago(400), status: 'closed' }))).toEqual([]);
  });

  it('vip.waiting: a high spender waiting past the shorter threshold', () => {
    expect(ids(session({ awaiting: true, waitingSince: ago(150), fanSpendCents: 9_999 }))).toEqual([]);
    const vip = evaluateSession(session({ awaiting: true, waitingSince: ago(150), fanSpendCents: 25_000 }), NOW);
    expect(vip).toMatchObject([{ ruleId: 'vip.waiting', severity: 'critical', labels: ['vip', 'awaiting-reply'] }]);
    expect(vip[0]?.reason).toContain('$250.00');
  });

  it('session.open-no-reply: open an hour with no human reply', () => {
    expect(ids(session({ replyCount: 0, openedAt: ago(3000) }))).toEqual([]);
    expect(evaluateSession(session({ replyCount: 0, openedAt: ago(3700) }), NOW)).toMatchObject([{ ruleId: 'session.open-no-reply', severity: 'warning' }]);
  });

  it('ppv.no-follow-up: a priced message last for 15 minutes, not once something follows it', () => {
    const ppv = msg(2, 'human', 1000, { priceCents: 2500 });
    const fired = evaluateSession(session({ messages: [msg(1, 'fan', 1100), ppv] }), NOW);
    expect(fired).toMatchObject([{ ruleId: 'ppv.no-follow-up', alertId: 'ppv.no-follow-up:acct_a:42:1:m2', labels: ['ppv-pending'] }]);
    expect(ids(session({ messages: [msg(1, 'fan', 1100), { ...ppv, sentAt: ago(300) }] }))).toEqual([]);
    expect(ids(session({ messages: [msg(1, 'fan', 1100), ppv, msg(3, 'fan', 900)] }))).toEqual([]);
    // Live evaluation has no messages and leaves message rules alone.
    expect(evaluateSession(session({ messages: [msg(1, 'fan', 1100), ppv] }), NOW, DEFAULT_RULE_SETTINGS, true)).toEqual([]);
  });

  it('language.churn-risk: negative words from the fan, until a human answers', () => {
    expect(churnPhrase('<p>I want to UNSUBSCRIBE</p>')).toBe('unsubscribe');
    expect(churnPhrase('this is not worth it')).toBe('not worth');
    expect(churnPhrase('I love it, cancellation policy?')).toBeNull();
    const angry = [msg(1, 'human', 500), msg(2, 'fan', 400, { text: 'this is a scam, I want a refund' })];
    expect(evaluateSession(session({ messages: angry }), NOW)).toMatchObject([{ ruleId: 'language.churn-risk', labels: ['churn-risk', 'negative-sentiment'] }]);
    expect(evaluateSession(session({ messages: angry }), NOW)[0]?.reason).toContain('"scam"');
    expect(ids(session({ messages: [...angry, msg(3, 'human', 100)] }))).toEqual([]);
  });

  it("chatter.slow-streak: the chatter's last three first responses all missed the SLA", () => {
    expect(evaluateChatter({ chatterId: 'ben', recentFirstResponseSec: [400, 900, 301] })).toMatchObject([{ ruleId: 'chatter.slow-streak', alertId: 'chatter.slow-streak:ben', chatterId: 'ben', sessionId: null }]);
    expect(evaluateChatter({ chatterId: 'ben', recentFirstResponseSec: [400, 120, 301] })).toEqual([]);
    expect(evaluateChatter({ chatterId: 'ben', recentFirstResponseSec: [400, 900] })).toEqual([]);
  });
});
