// Texts built to make a text cleaner slow pass through without stalling anyone (issue 13):
// 1 MB of `<` and 1 MB of unclosed nested tags, posted as webhooks while another chat keeps
// talking. Before, `/<[^>]*>/g` over 300,000 `<` held the event loop 28 s (1 MB: minutes), and
// every chat behind the record waited. Now the other chat's messages show up as promptly as
// ever, and the hostile messages are stored (their text cut) and counted. The model answer
// parser and the prompt builder get the same kind of text below.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { MAX_TEXT_CHARS } from '../../src/domain/normalise.js';
import { ModelOutputRejected, parseModelAnswer, transcript } from '../../src/intelligence/model-provider.js';
import { churnPhrase } from '../../src/intelligence/rules.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import type { Delivery } from '../support/fault-input.js';
import { getJson, messageBody } from '../support/platform.js';
import { deliverAll } from '../support/sender.js';
import { eventually } from '../support/wait.js';

const SECRET = 'whsec_pathological_text';
// Its long run of digits sends every body to the lossless JSON parser: the slower path.
const ACCOUNT = 'acct_0130000000000000000000000000000d';
const SIZE = 1_000_000;
// The other chat's messages must be visible within this of being accepted. Normally well
// under a second; the old cleaner held the process for minutes on one of these texts.
const PROMPT_MS = 10_000;

const LT = '<'.repeat(SIZE);
const NESTED = 'abcdefghijklmnopqrstuvwxyz'.split('').map((c) => `<${c}`).join('').repeat(Math.ceil(SIZE / 52)).slice(0, SIZE);
const HOSTILE = [
  { name: '1 MB of <', fanId: 613_001, messageId: 7_613_001, text: LT },
  { name: '1 MB of nested unclosed tags', fanId: 613_002, messageId: 7_613_002, text: NESTED },
] as const;
const STEADY_FAN = 613_100;

const T0 = Date.parse('2026-06-10T12:00:00Z');

/** A signed-ready messages.received body whose payload.text is exactly `text` (no `<p>` around it). */
function fanMessage(fanId: number, messageId: number, at: number, text: string): Delivery {
  const body = messageBody({ accountId: ACCOUNT, fanId, messageId, createdAt: new Date(at).toISOString(), direction: 'received', text: 'TEXT_SLOT' })
    .replace('"<p>TEXT_SLOT</p>"', JSON.stringify(text));
  return { key: `evt_pathological_${messageId}`, body };
}

interface MessageItem { id: string; text: string }
interface ChatDetail { chats: { messageCount: number; fanMessageCount: number; lastMessageText: string | null }[]; messages: MessageItem[] }
interface AccountItem { id: string; messages: number; fanMessages: number }

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe.each(DEPLOYMENTS)('pathological texts on %s', (kind) => {
  let app: RunningApp;
  let url = '';
  beforeAll(async () => {
    app = await startWithEnv(await deploymentEnv(kind, { PLATFORMAPI_WEBHOOK_SECRET: SECRET, ALERT_SWEEP_SEC: '0' }));
    url = app.url ?? '';
  });
  afterAll(async () => {
    await app?.stop();
    removeDataDirs();
  });

  const messagesOf = async (fanId: number): Promise<MessageItem[]> => (await getJson<{ items: MessageItem[] }>(url, `/api/messages?chatId=${fanId}&limit=500`)).body.items;

  it('another chat stays prompt while 1 MB hostile texts go through; they are stored cut and counted', async () => {
    for (const h of HOSTILE) expect(Buffer.byteLength(fanMessage(h.fanId, h.messageId, T0, h.text).body)).toBeLessThan(1_048_576);
    const accepted = new Map<string, number>();
    const visible = new Map<string, number>();
    let sending = true;
    let watching = true;
    let sent = 0;
    const steady = (async () => {
      while (sending) {
        const messageId = 7_613_100 + sent;
        await deliverAll(() => url, [fanMessage(STEADY_FAN, messageId, T0 + sent * 1000, `steady message ${sent}`)], { secret: SECRET });
        accepted.set(String(messageId), Date.now());
        sent++;
        await sleep(100);
      }
    })();
    const watcher = (async () => {
      while (watching) {
        for (const m of await messagesOf(STEADY_FAN)) if (!visible.has(m.id)) visible.set(m.id, Date.now());
        await sleep(50);
      }
    })();
    // The pipeline is running: the first steady message got through.
    await eventually(() => (visible.size > 0 ? true : undefined), 60_000, 'the first steady message');

    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const hostileVisible: Record<string, number> = {};
    for (const h of HOSTILE) {
      const started = Date.now();
      await deliverAll(() => url, [fanMessage(h.fanId, h.messageId, T0 + 500, h.text)], { secret: SECRET });
      await eventually(async () => ((await messagesOf(h.fanId)).length > 0 ? true : undefined), 60_000, `${h.name} stored`);
      hostileVisible[h.name] = Date.now() - started;
    }
    // Keep the steady chat going a little longer, then let its last message land.
    await sleep(2000);
    sending = false;
    await steady;
    await eventually(() => (visible.size === accepted.size ? true : undefined), 60_000, 'every steady message visible');
    watching = false;
    await watcher;
    loop.disable();

    const latencies = [...accepted].map(([id, at]) => (visible.get(id) ?? Number.POSITIVE_INFINITY) - at).sort((a, b) => a - b);
    console.log(`${kind}: ${sent} steady messages, visible after p50 ${latencies[Math.floor(latencies.length / 2)]} ms, max ${latencies[latencies.length - 1]} ms; `
      + `hostile messages stored after ${JSON.stringify(hostileVisible)} ms; event loop delay max ${(loop.max / 1e6).toFixed(0)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(0)} ms`);
    expect(sent).toBeGreaterThan(10);
    expect(latencies[latencies.length - 1]).toBeLessThan(PROMPT_MS);

    // Stored with the text cut to what a read model keeps, and counted like any message.
    for (const h of HOSTILE) {
      const [message, ...rest] = await messagesOf(h.fanId);
      expect(rest).toEqual([]);
      expect(message?.id).toBe(String(h.messageId));
      expect(message?.text).toBe(h.text.slice(0, MAX_TEXT_CHARS));
      const chat = await eventually(async () => {
        const detail = (await getJson<ChatDetail>(url, `/api/chats?chatId=${h.fanId}`)).body;
        return detail.chats[0]?.messageCount === 1 ? detail.chats[0] : undefined;
      }, 30_000, `${h.name} counted on its chat`);
      expect(chat).toMatchObject({ messageCount: 1, fanMessageCount: 1 });
    }
    const account = await eventually(async () => {
      const items = (await getJson<{ items: AccountItem[] }>(url, '/api/accounts')).body.items;
      const a = items.find((i) => i.id === ACCOUNT);
      return a?.messages === sent + HOSTILE.length ? a : undefined;
    }, 30_000, 'account totals');
    expect(account).toMatchObject({ messages: sent + HOSTILE.length, fanMessages: sent + HOSTILE.length });
  }, 300_000);
});

describe('pathological model answers and prompts', () => {
  const GOOD = JSON.stringify({ labels: [{ label: 'churn-risk', confidence: 0.8 }], summary: 'Fan is unhappy.', recommendations: ['Reassure the fan.'] });

  it('the answer parser takes ~1 MB and 2 MB of backticks and whitespace: garbage is rejected, a padded answer parses', () => {
    for (const size of [1_000_000, 2_000_000]) {
      const ws = ' \t\n'.repeat(size / 3);
      for (const garbage of ['`'.repeat(size), `x${ws}x`, `\`\`\`${ws}x`, `{${ws}\`\`\`x`, ' `'.repeat(size / 2), `${'`'.repeat(size / 2)}${ws}`]) {
        expect(() => parseModelAnswer(garbage)).toThrow(ModelOutputRejected);
      }
      expect(parseModelAnswer(`\`\`\`json${ws}${GOOD}${ws}\`\`\``)).toEqual(JSON.parse(GOOD));
      expect(parseModelAnswer(`${ws}${GOOD}${ws}\`\`\`${ws}`)).toEqual(JSON.parse(GOOD));
    }
  });

  it('the prompt builder and the churn rule take 1 MB texts', () => {
    const at = T0;
    const prompt = transcript(HOSTILE.map((h, i) => ({ messageId: String(i), sender: 'fan' as const, chatterId: null, text: h.text, priceCents: 0, sentAt: at })));
    expect(prompt).toBe(HOSTILE.map((h) => `FAN: ${h.text.slice(0, 500)}`).join('\n'));
    for (const h of HOSTILE) expect(churnPhrase(h.text)).toBeNull();
    expect(churnPhrase(`${'<'.repeat(1000)}i want a refund`)).toBe('refund');
  });
});
