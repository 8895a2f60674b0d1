// What a delivery says. `standard`: a Standard Webhooks event, `{type, timestamp, data}`, with
// the alert as the transition left it. `slack`: the `{"text": …}` an incoming Slack webhook
// (and Mattermost, Teams' Slack-compatible connectors) posts as a message.
import type { OutboxEntry } from '../pipeline/alert-doc.js';
import type { HookFormat } from './hook-docs.js';

export interface AlertEvent {
  readonly type: `alert.${OutboxEntry['event']}`;
  readonly timestamp: string;
  readonly data: OutboxEntry['alert'] & { readonly event: OutboxEntry['event']; readonly eventId: string };
}

export function alertEvent(entry: OutboxEntry): AlertEvent {
  return { type: `alert.${entry.event}`, timestamp: new Date(entry.at).toISOString(), data: { ...entry.alert, event: entry.event, eventId: entry.id } };
}

const SEVERITY_MARK = { critical: ':red_circle:', warning: ':large_orange_circle:', info: ':large_blue_circle:' } as const;
const VERB = { opened: 'opened', acked: 'acknowledged', resolved: 'resolved' } as const;

/** Slack reads `<`, `>` and `&` as markup: a reason quoting a fan must not become a link or a mention. */
const slackEscape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function slackText(entry: OutboxEntry): string {
  const a = entry.alert;
  const where = [a.accountId && `account ${a.accountId}`, a.chatterId && `chatter ${a.chatterId}`].filter(Boolean).join(', ');
  const who = entry.event === 'acked' && a.ackedBy ? ` by ${a.ackedBy}` : '';
  const lines = [
    `${SEVERITY_MARK[a.severity]} *${a.severity}* alert ${VERB[entry.event]}${slackEscape(who)}: ${slackEscape(a.reason)}${where ? ` (${slackEscape(where)})` : ''}`,
    ...(entry.event === 'resolved' ? [] : [`> ${slackEscape(a.recommendation)}`]),
  ];
  return lines.join('\n').slice(0, 3000);
}

/** The body's bytes, built once per delivery and sent the same on every attempt. */
export function deliveryBody(entry: OutboxEntry, format: HookFormat): string {
  return JSON.stringify(format === 'slack' ? { text: slackText(entry) } : alertEvent(entry));
}

/** A probe an admin sends to check a receiver (POST /api/admin/alert-hooks/:id/test): no alert behind it. */
export function testBody(format: HookFormat, id: string, at: number): string {
  return JSON.stringify(format === 'slack'
    ? { text: ':white_check_mark: convops alert hook test: this receiver will get alert transitions' }
    : { type: 'alert.test', timestamp: new Date(at).toISOString(), data: { eventId: id } });
}
