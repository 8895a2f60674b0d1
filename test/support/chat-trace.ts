// Where a chat's facts went, stage by stage, for a fault test whose figures differ from the
// reference: the inbound records of its key (offset, source, the fact each carries), its
// session events (offset, seq, type, message or payment id), the processor's stored state
// and ledger, and which of the reference's ids never reached an event. One trace tells
// whether a fact was lost before the processor (not in inbound), by it (in inbound, no event)
// or after it (an event, not in the read models).
import type { Log, LogRecord } from '../../src/adapters/log/log.js';
import { partitionForKey } from '../../src/adapters/log/partitioner.js';
import type { Doc, DocumentStore } from '../../src/adapters/store/store.js';
import { CHAT_LEDGER_COLLECTION } from '../../src/processor/chat-ledger.js';
import { CHAT_STATE_COLLECTION, type ChatStateDoc } from '../../src/processor/chat-state.js';
import type { Topology } from '../../src/topology.js';
import { readInboundMeta } from '../../src/domain/inbound-record.js';
import type { Reference } from './reference-model.js';
import { factOf } from './webhook-facts.js';

async function recordsOfKey(log: Log, topic: string, key: string): Promise<LogRecord[]> {
  const partition = partitionForKey(key, await log.partitionCount(topic));
  const end = (await log.endOffsets(topic))[partition] ?? 0;
  const { records } = await log.readRange(topic, partition, 0, end, (r) => r.key === key);
  return records;
}

/** The reference's ids (messages and payments) of one chat. */
function referenceIds(ref: Reference, chatKey: string): string[] {
  const account = chatKey.slice(0, chatKey.lastIndexOf(':'));
  const out: string[] = [];
  for (const [k, m] of ref.messages) if (m.sessionId?.startsWith(`${chatKey}:`) === true) out.push(k.slice(account.length + 1));
  for (const [k, p] of ref.payments) if (p.sessionId?.startsWith(`${chatKey}:`) === true) out.push(k.slice(account.length + 1));
  return out;
}

export async function traceChat(ref: Reference, chatKey: string, log: Log, store: DocumentStore, topo: Topology): Promise<string> {
  const lines: string[] = [`trace of ${chatKey}:`];
  const inbound = await recordsOfKey(log, topo.inbound, chatKey);
  const inboundIds = new Map<string, number[]>();
  lines.push(`  inbound (${inbound.length}): ${inbound.map((r) => {
    const fact = (() => {
      try {
        return factOf(r.value.toString('utf8'));
      } catch {
        return null;
      }
    })();
    if (!fact || fact.kind === 'close') return `${r.offset}:${r.headers['convops-source'] ?? '?'}`;
    inboundIds.set(fact.id, [...(inboundIds.get(fact.id) ?? []), r.offset]);
    return `${r.offset}:${fact.kind[0]}${fact.id}`;
  }).join(' ')}`);
  const events = await recordsOfKey(log, topo.sessionEvents, chatKey);
  const eventIds = new Set<string>();
  lines.push(`  session events (${events.length}): ${events.map((r) => {
    const e = JSON.parse(r.value.toString('utf8')) as { seq?: number; type?: string; data?: { messageId?: string; paymentId?: string } };
    const id = e.data?.messageId ?? e.data?.paymentId;
    if (id) eventIds.add(id);
    return `${r.offset}:#${e.seq ?? '?'}${(e.type ?? '?').replace(/[a-z]/g, '')}${id ? `(${id})` : ''}`;
  }).join(' ')}`);
  const state = await store.collection<ChatStateDoc>(CHAT_STATE_COLLECTION).findOne({ _id: chatKey });
  lines.push(`  stored state: ${state ? `offset ${state.offset}, seq ${String(state.state?.context?.seq)}, deadline ${String(state.deadline)}` : 'none'}`);
  const ledger = await store.collection<Doc & { offset?: number }>(CHAT_LEDGER_COLLECTION).find({ chatKey } as never);
  lines.push(`  ledger (${ledger.length}): ${ledger.map((d) => `${String(d._id).slice(chatKey.length + 1)}@${String(d.offset)}`).join(' ')}`);
  const expected = referenceIds(ref, chatKey);
  const noInbound = expected.filter((id) => !inboundIds.has(id));
  const noEvent = expected.filter((id) => inboundIds.has(id) && !eventIds.has(id));
  lines.push(`  reference ids ${expected.length}; not in inbound: ${noInbound.join(', ') || 'none'}; in inbound without an event: ${noEvent.map((id) => `${id}@${inboundIds.get(id)?.join('/')}`).join(', ') || 'none'}`);
  // An id not found under the chat's key: searched for in every record of every partition, so a
  // record stored under another key or with unreadable headers (which the processor counts as a
  // record of no chat and passes over) shows, apart from one that was never appended.
  if (noInbound.length > 0) {
    const count = await log.partitionCount(topo.inbound);
    const ends = await log.endOffsets(topo.inbound);
    for (let p = 0; p < count; p++) {
      const { records } = await log.readRange(topo.inbound, p, 0, ends[p] ?? 0, (r) => noInbound.some((id) => r.value.includes(id)));
      for (const r of records) lines.push(`  found elsewhere: ${p}:${r.offset} key ${JSON.stringify(r.key).slice(0, 120)} headers ${JSON.stringify(r.headers).slice(0, 300)}`);
    }
    const unroutable: string[] = [];
    const partition = partitionForKey(chatKey, count);
    const { records } = await log.readRange(topo.inbound, partition, 0, ends[partition] ?? 0, (r) => readInboundMeta(r.headers) === undefined);
    for (const r of records.slice(0, 5)) unroutable.push(`${r.offset} key ${JSON.stringify(r.key).slice(0, 80)} headers ${JSON.stringify(r.headers).slice(0, 200)}`);
    lines.push(`  records of partition ${partition} without routing headers: ${records.length}${unroutable.length > 0 ? ` (${unroutable.join('; ')})` : ''}; partition ends at ${ends[partition] ?? 0}`);
  }
  // The headers route a record; one the processor cannot read is a record of no chat.
  for (const id of noEvent.slice(0, 3)) {
    for (const r of inbound.filter((x) => inboundIds.get(id)?.includes(x.offset))) lines.push(`  ${id}@${r.offset} headers ${JSON.stringify(r.headers).slice(0, 400)}`);
  }
  return lines.join('\n');
}

/** The chat keys a comparison's problems name (`chat <key>: …`, `session <key>:<n>: …`), first seen first. */
export function chatsNamed(problems: readonly string[]): string[] {
  const out = new Set<string>();
  for (const p of problems) {
    const chat = /^chat (\S+): /.exec(p);
    if (chat?.[1]) out.add(chat[1]);
    const session = /^session (\S+):\d+: /.exec(p);
    if (session?.[1]) out.add(session[1]);
  }
  return [...out];
}
