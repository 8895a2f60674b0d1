// Session-machine benchmark: inputs per second through step() (normalised inputs, no I/O), and
// resident memory per chat with 100,000 chat states held in memory.
//   node --expose-gc --import tsx bench/machines.ts [--chats 100000] [--inputs 200000]
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import type { ChatMessageInput } from '../machines/chat-input.js';
import { initialChatState, step, type ChatState } from '../machines/step.js';

const { values } = parseArgs({ options: { chats: { type: 'string', default: '100000' }, inputs: { type: 'string', default: '200000' } } });
const CHATS = Number(values.chats);
const INPUTS = Number(values.inputs);
const gc = (globalThis as { gc?: () => void }).gc;
const t0 = Date.parse('2026-06-10T00:00:00Z');

function input(i: number, chat: number): ChatMessageInput {
  const sender = i % 3 === 0 ? 'human' : 'fan';
  return { type: 'chat.message', dedupeKey: `evt_${i}`, messageId: String(1_900_000_000_000 + i), sender, at: t0 + i * 1000, text: 'hello there', priceCents: 0, chatterId: sender === 'human' ? `c${chat % 5}` : null, receivedAt: t0 + i * 1000 };
}

// Throughput: inputs spread over 1,000 chats, as a partition's stream would be.
const hot = new Map<number, ChatState>();
let events = 0;
const started = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
for (let i = 0; i < INPUTS; i++) {
  const chat = i % 1000;
  const state = hot.get(chat) ?? initialChatState({ accountId: 'acct_b', chatId: String(chat), idleMs: 1_800_000, lateMs: 300_000, unansweredMs: 86_400_000 });
  const r = step(state, input(i, chat));
  hot.set(chat, r.state);
  events += r.events.length;
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const cpu = process.cpuUsage(cpu0);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;

// Memory: one state per chat after a short conversation each (fan message, reply, fan message).
gc?.();
const before = process.memoryUsage();
const states: ChatState[] = new Array(CHATS);
for (let c = 0; c < CHATS; c++) {
  let s = initialChatState({ accountId: 'acct_b', chatId: String(c), idleMs: 1_800_000, lateMs: 300_000, unansweredMs: 86_400_000 });
  for (let k = 0; k < 3; k++) s = step(s, input(c * 3 + k, c)).state;
  states[c] = s;
}
gc?.();
const after = process.memoryUsage();
const perChatRss = (after.rss - before.rss) / CHATS;
const perChatHeap = (after.heapUsed - before.heapUsed) / CHATS;

console.log(`machines benchmark: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), node ${process.version}`);
console.log(`throughput: ${INPUTS} inputs in ${seconds.toFixed(2)} s = ${Math.round(INPUTS / seconds)} inputs/s, ${Math.round(events / seconds)} events/s emitted (issue 29: >= 25,000 inputs/s)`);
console.log(`cpu time: ${cpuSeconds.toFixed(2)} s = ${((cpuSeconds * 1e6) / INPUTS).toFixed(1)} µs per input = ${Math.round(INPUTS / cpuSeconds)} inputs/s of CPU (the machine may be shared: wall time counts waiting for a core)`);
console.log(`memory: ${CHATS} chat states held: ${(perChatRss / 1024).toFixed(2)} KiB RSS per chat, ${(perChatHeap / 1024).toFixed(2)} KiB heap per chat (issue 29: <= 5 KiB)${gc ? '' : ' (run with --expose-gc for steadier numbers)'}`);
if (states.length !== CHATS) throw new Error('unreachable');
