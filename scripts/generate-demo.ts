// Generates fixtures/demo: a week of realistic traffic for 3 accounts, 60 chats and several
// chatters, as signed platform webhooks (records.jsonl) plus the account list (accounts.json).
// Deterministic: the same seed gives the same files.   node --import tsx scripts/generate-demo.ts
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_DEMO_SECRET } from '../src/config.js';
import type { DemoRecord } from '../src/demo/demo-records.js';
import { messageWebhook, ppvUnlockedWebhook, subscribedWebhook, tipWebhook, transactionWebhook } from '../src/demo/platform-bodies.js';
import { signBody } from '../src/ingest/signature.js';
import { mulberry32 } from '../src/demo/random.js';

const START = Date.parse('2026-06-03T00:00:00Z');
const DAYS = 7;
const out = join(import.meta.dirname, '../fixtures/demo');

const rand = mulberry32(20260603);
const between = (lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
const chance = (p: number): boolean => rand() < p;

export const DEMO_ACCOUNTS = [
  { id: 'acct_0000000000000000000000000000de01', displayName: 'Demo: Luna Vale', chatters: ['ana', 'ben'] },
  { id: 'acct_0000000000000000000000000000de02', displayName: 'Demo: Mira Stone', chatters: ['cleo', 'dev'] },
  { id: 'acct_0000000000000000000000000000de03', displayName: 'Demo: Nova Reyes', chatters: ['ana', 'eli', 'dev'] },
];

const FAN_LINES = ['hey you', 'are you there?', 'what are you up to tonight', 'loved your last post', 'can I see more?', 'how much for something special?', 'miss you', 'you never answer me', 'thinking about unsubscribing', 'good morning', 'that was amazing', 'do you do customs?'];
const REPLY_LINES = ['hi babe, just got back!', 'of course, give me a sec', 'I made something just for you', 'thank you so much', 'tell me more', 'you are sweet', 'check your inbox', 'I was hoping you would write'];

interface Timed { at: number; record: DemoRecord }
const records: Timed[] = [];
let messageSeq = 1_780_000_000_000;
let notificationSeq = 115_000_000_000;
let txnSeq = 0;
let keySeq = 0;

const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');
const key = (): string => `evt_${(++keySeq).toString(16).padStart(40, 'd')}`;
const txnId = (): string => (++txnSeq).toString(16).padStart(32, 'e');

function push(at: number, body: string, chatterId?: string): void {
  records.push({ at, record: { body, signature: signBody(DEFAULT_DEMO_SECRET, body), idempotencyKey: key(), ...(chatterId ? { chatterId } : {}) } });
}

for (const [ai, account] of DEMO_ACCOUNTS.entries()) {
  for (let f = 0; f < 20; f++) {
    const fanId = String(300_000_000 + ai * 1000 + f);
    let spend = between(0, 400);
    const chatterAt = (ms: number): string => account.chatters[Math.floor(new Date(ms).getUTCHours() / (24 / account.chatters.length))] ?? account.chatters[0] ?? 'ana';
    const sessions = between(3, 6);
    const leftWaiting = f % 7 === 3;
    let t = START + between(0, 36) * 3600_000 + between(0, 3599) * 1000;
    if (f % 4 === 0) {
      // A new subscriber: the notification and the transaction that carries the money.
      const price = pick([4.99, 9.99, 14.99]);
      spend += price;
      push(t - 60_000, subscribedWebhook({ accountId: account.id, fanId, notificationId: String(++notificationSeq), createdAt: iso(t - 60_000), amountDollars: price }));
      push(t - 59_000, transactionWebhook({ accountId: account.id, fanId, transactionId: txnId(), createdAt: iso(t - 59_000), type: 'subscription', amountDollars: price, fanSpendDollars: spend }));
    }
    const end = START + DAYS * 86400_000;
    // A fan left waiting writes last, just after the other traffic ends: placed in the present by
    // seed-demo, the inbox shows waits of minutes, as a live floor does.
    for (let s = 0; s < sessions && (t < end || (leftWaiting && s === sessions - 1)); s++) {
      const last = s === sessions - 1;
      if (last && leftWaiting) t = Math.max(t, end + between(30, 60) * 60_000);
      const rounds = between(2, 5);
      for (let r = 0; r < rounds; r++) {
        for (let k = between(1, 2); k > 0; k--) {
          t += between(5, 90) * 1000;
          push(t, messageWebhook({ accountId: account.id, fanId, messageId: String(++messageSeq), createdAt: iso(t), text: pick(FAN_LINES), direction: 'received', fanSpendDollars: spend }));
        }
        if (last && leftWaiting && r === rounds - 1) break; // this fan is still waiting
        if (chance(0.08)) {
          t += between(5, 60) * 1000;
          // One mass message (campaign) per account and day, sent to the fans it reaches.
          const day = Math.floor((t - START) / 86400_000);
          const queueId = `7${ai}${day}`;
          // Every other day's is a PPV, and a third of the fans it reaches buy it (no draw from the
          // seeded sequence: the rest of the demo stays as it was).
          const price = day % 2 === 0 ? 9.99 : 0;
          const massId = String(++messageSeq);
          push(t, messageWebhook({ accountId: account.id, fanId, messageId: massId, createdAt: iso(t), text: 'New set out now, check it out!', direction: 'sent', fromQueue: true, queueId, priceDollars: price }));
          if (price > 0 && f % 3 === 0) {
            const paidAt = t + 12 * 60_000;
            push(paidAt, ppvUnlockedWebhook({ accountId: account.id, fanId, notificationId: String(++notificationSeq), createdAt: iso(paidAt), amountDollars: price, ppvMessageId: massId }));
            push(paidAt + 1000, transactionWebhook({ accountId: account.id, fanId, transactionId: txnId(), createdAt: iso(paidAt + 1000), type: 'message', amountDollars: price }));
          }
        }
        // Response time: mostly quick, sometimes past the 5-minute SLA, now and then very slow.
        const roll = rand();
        t += (r === 0 ? (roll < 0.65 ? between(20, 280) : roll < 0.9 ? between(301, 900) : between(901, 1500)) : between(10, 200)) * 1000;
        const chatter = chatterAt(t);
        const ppv = chance(0.25) ? pick([5, 10, 15, 25, 40]) : 0;
        const ppvMessageId = String(messageSeq + 1);
        push(t, messageWebhook({ accountId: account.id, fanId, messageId: String(++messageSeq), createdAt: iso(t), text: ppv ? 'Unlock this one, just for you' : pick(REPLY_LINES), direction: 'sent', priceDollars: ppv }), chatter);
        for (let extra = between(0, 2); extra > 0; extra--) {
          t += between(10, 120) * 1000;
          push(t, messageWebhook({ accountId: account.id, fanId, messageId: String(++messageSeq), createdAt: iso(t), text: pick(REPLY_LINES), direction: 'sent' }), chatter);
        }
        if (ppv && chance(0.6)) {
          t += between(30, 600) * 1000;
          spend += ppv;
          // The platform names the PPV only in the chat link (firstId=).
          push(t, ppvUnlockedWebhook({ accountId: account.id, fanId, notificationId: String(++notificationSeq), createdAt: iso(t), amountDollars: ppv, ppvMessageId }));
          push(t + 1000, transactionWebhook({ accountId: account.id, fanId, transactionId: txnId(), createdAt: iso(t + 1000), type: 'message', amountDollars: ppv, fanSpendDollars: spend }));
          t += 1000;
        }
        if (chance(0.12)) {
          t += between(20, 300) * 1000;
          const tip = pick([3, 5, 10, 20, 50]);
          spend += tip;
          push(t, tipWebhook({ accountId: account.id, fanId, notificationId: String(++notificationSeq), createdAt: iso(t), amountDollars: tip, fanSpendDollars: spend }));
          push(t + 1000, transactionWebhook({ accountId: account.id, fanId, transactionId: txnId(), createdAt: iso(t + 1000), type: 'tip', amountDollars: tip, fanSpendDollars: spend }));
          t += 1000;
        }
      }
      // Next conversation: hours later, always past the 30-minute idle timeout.
      t += between(2, 30) * 3600_000;
    }
  }
}

records.sort((a, b) => a.at - b.at || (a.record.idempotencyKey < b.record.idempotencyKey ? -1 : 1));
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'records.jsonl'), records.map((r) => JSON.stringify(r.record)).join('\n') + '\n');
writeFileSync(join(out, 'accounts.json'), JSON.stringify(DEMO_ACCOUNTS.map(({ id, displayName }) => ({ id, displayName })), null, 2) + '\n');
const messages = records.filter((r) => r.record.body.includes('"event":"messages.')).length;
process.stdout.write(`wrote ${records.length} records (${messages} messages) for ${DEMO_ACCOUNTS.length} accounts to ${out}\n`);
