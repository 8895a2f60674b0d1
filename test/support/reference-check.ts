// What a fault test compares against: the reference model's reading of the deliveries (each
// fact once, in time order), not a second run of the system, which would share its
// assumptions. Before comparing, a clock tick past the lateness settles every chat, as the
// ticker does live, so sessions whose idle gap has passed are closed on both sides.
import { expect } from 'vitest';
import { createLog } from '../../src/adapters/index.js';
import type { Log } from '../../src/adapters/log/log.js';
import type { DocumentStore } from '../../src/adapters/store/store.js';
import { loadConfig } from '../../src/config.js';
import { SET_ASIDE_COLLECTION, type SetAsideDoc } from '../../src/pipeline/set-aside.js';
import { tickRecords } from '../../src/processor/ticker.js';
import { createLogger } from '../../src/support/logger.js';
import { topology } from '../../src/topology.js';
import { ReadModelSet } from '../../src/read-models/read-model-set.js';
import { verifyFigures } from '../../src/read-side/verify.js';
import { compareWithReference } from './compare-reference.js';
import type { Delivery } from './fault-input.js';
import { readModelDocs, settledHash } from './read-models.js';
import { reference, type Reference } from './reference-model.js';
import { factsOf } from './webhook-facts.js';
import { chatsNamed, traceChat } from './chat-trace.js';

const IDLE_MS = 1800_000;

/** Every session of the deliveries is closed by the settling tick: their times lie months back. */
export function referenceOf(deliveries: readonly Delivery[], idleMs = IDLE_MS): Reference {
  return reference(factsOf(deliveries.map((d) => d.body)), idleMs, Number.POSITIVE_INFINITY);
}

/** Appends a clock tick past the allowed lateness to every inbound partition of the deployment `env` describes (through `log` when the test holds one). */
export async function settleChats(env: Record<string, string>, held?: Log): Promise<void> {
  const config = loadConfig(env);
  const log = held ?? createLog(config, createLogger('silent'));
  try {
    const inbound = topology(config.topicPrefix, config.inboundTopic ?? undefined).inbound;
    const now = Date.now() + (config.allowedLatenessSec + 1) * 1000;
    await log.append(inbound, tickRecords(await log.partitionCount(inbound), now));
  } finally {
    if (!held) await log.close();
  }
}

/** Settles the chats, waits for the pipeline, then compares every figure with the reference. */
export async function expectSameAsReference(ref: Reference, url: string, store: DocumentStore, env: Record<string, string>, timeoutMs = 240_000, log?: Log): Promise<void> {
  await settledHash(url, store, timeoutMs);
  await settleChats(env, log);
  await new Promise((r) => setTimeout(r, 500));
  await settledHash(url, store, timeoutMs);
  const docs = await readModelDocs(store);
  const problems = compareWithReference(ref, docs as never);
  if (problems.length > 0) expect(problems, await explainMismatch(ref, url, store, env, log)).toEqual([]);
  // And the operator's check agrees: totals rows and report buckets equal the documents.
  expect((await verifyFigures(await new ReadModelSet(store).active())).differences).toEqual([]);
}

/** How long a comparison that failed waits before it looks again (see explainMismatch). */
const RECHECK_MS = 10_000;

/**
 * What a failed comparison says besides its differences, so that one failure tells which kind
 * it was: whether the read models still differ a while later (a pipeline judged drained too
 * early catches up, a loss does not), what the pipeline set aside (a set-aside record is in no
 * read model, by design: only set_aside and health show it), and what health reports.
 */
async function explainMismatch(ref: Reference, url: string, store: DocumentStore, env: Record<string, string>, held?: Log): Promise<string> {
  await new Promise((r) => setTimeout(r, RECHECK_MS));
  const later = compareWithReference(ref, (await readModelDocs(store)) as never);
  const setAside = await store.collection<SetAsideDoc>(SET_ASIDE_COLLECTION).find({}, { limit: 10 }).then(
    (docs) => docs.map((d) => `${d._id} (${d.stage}, ${d.event ?? '?'} of ${d.chatKey ?? '?'}): ${d.error}`),
    (err: unknown) => [`unreadable: ${String(err)}`],
  );
  const health = await fetch(`${url}/api/health`).then(async (res) => {
    const h = (await res.json()) as { problems?: unknown; components?: Record<string, { lag?: unknown }> };
    return `problems ${JSON.stringify(h.problems)}, lag processor ${String(h.components?.processor?.lag)}, projector ${String(h.components?.projector?.lag)}`;
  }, (err: unknown) => `unreachable: ${String(err)}`);
  return [
    later.length === 0
      ? `read models differ from the reference, but no longer ${RECHECK_MS} ms later: the pipeline was judged drained before it was`
      : `${RECHECK_MS} ms later they still differ: ${later.slice(0, 3).join('; ')}`,
    `set aside: ${setAside.length === 0 ? 'nothing' : setAside.join('; ')}`,
    `health: ${health}`,
    ...await traces(ref, later, store, env, held),
  ].join('\n');
}

/** Stage-by-stage traces of the first chats still differing (./chat-trace.ts). */
async function traces(ref: Reference, problems: readonly string[], store: DocumentStore, env: Record<string, string>, held?: Log): Promise<string[]> {
  const config = loadConfig(env);
  const log = held ?? createLog(config, createLogger('silent'));
  try {
    const topo = topology(config.topicPrefix, config.inboundTopic ?? undefined);
    const out: string[] = [];
    for (const chatKey of chatsNamed(problems).slice(0, 3)) {
      out.push(await traceChat(ref, chatKey, log, store, topo).catch((err: unknown) => `trace of ${chatKey} failed: ${String(err)}`));
    }
    return out;
  } finally {
    if (!held) await log.close();
  }
}
