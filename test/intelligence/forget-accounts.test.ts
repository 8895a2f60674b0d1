// Intelligence.forgetAccounts, what purge-demo runs once the read models are purged: the
// purged accounts' alerts and analyses go, and so does a chatter's slow-streak alert (which
// names no account) when the streak no longer holds without the purged sessions; one that
// still holds on another account's sessions stays, and so does everything of other accounts.
import { afterAll, describe, expect, it } from 'vitest';
import { createStore } from '../../src/adapters/index.js';
import type { DocumentStore } from '../../src/adapters/store/store.js';
import { loadConfig } from '../../src/config.js';
import { findingToAlert, Intelligence, type AlertDoc, type AnalysisDoc } from '../../src/intelligence/intelligence.js';
import type { Finding } from '../../src/pipeline/alert-doc.js';
import { DEFAULT_RULE_SETTINGS, evaluateChatter } from '../../src/intelligence/rules.js';
import type { SessionDoc } from '../../src/read-models/sessions/projection.js';
import { ReadModelSet } from '../../src/read-models/read-model-set.js';
import { createLogger } from '../../src/support/logger.js';
import { DELIVERIES_COLLECTION, type DeliveryDoc } from '../../src/alert-hooks/hook-docs.js';
import { deploymentEnv, removeDataDirs } from '../support/deployments.js';

const PURGED = 'acct_purged';
const KEPT = 'acct_kept';
const NOW = Date.UTC(2026, 5, 10, 12);
const kept = (sessions: readonly SessionDoc[]) => sessions.filter((s) => s.accountId === KEPT);

describe('Intelligence.forgetAccounts', () => {
  let store: DocumentStore | null = null;
  afterAll(async () => {
    await store?.close();
    removeDataDirs();
  });

  it("removes the purged accounts' alerts, analyses and the streaks that rested on them, nothing else", async () => {
    store = await createStore(loadConfig(await deploymentEnv('embedded')));
    const models = new ReadModelSet(store);
    const intelligence = new Intelligence(store, models, DEFAULT_RULE_SETTINGS, null, createLogger('silent'), () => NOW);
    const rm = await models.active();
    let n = 0;
    /** A session answered by `chatterId` after `sec` seconds, `ago` minutes before NOW. */
    const session = (accountId: string, chatterId: string, sec: number, ago: number) => {
      n++;
      return { _id: `${accountId}:${n}:1`, accountId, chatId: String(n), firstResponderId: chatterId, firstResponseSec: sec, firstResponseAt: NOW - ago * 60_000 } as unknown as SessionDoc;
    };
    const sessions = [
      // ben answered slowly in the purged account only; dev slowly there but quickly, and more
      // recently, in the kept one; eli slowly in both; cleo slowly in the kept one only.
      ...[1, 2, 3].map((i) => session(PURGED, 'ben', 900, i)),
      ...[10, 11, 12].map((i) => session(PURGED, 'dev', 900, i)),
      ...[1, 2, 3].map((i) => session(KEPT, 'dev', 60, i)),
      ...[1, 2, 3].map((i) => session(PURGED, 'eli', 900, i)),
      ...[4, 5, 6].map((i) => session(KEPT, 'eli', 900, i)),
      ...[1, 2, 3].map((i) => session(KEPT, 'cleo', 900, i)),
    ];
    await rm.sessions.bulkWrite(sessions.map((document) => ({ insertOne: { document } })));
    const streak = (chatterId: string): Finding => {
      const [f] = evaluateChatter({ chatterId, recentFirstResponseSec: [900, 900, 900] });
      if (!f) throw new Error('no streak');
      return f;
    };
    const waiting = (s: SessionDoc): Finding => ({
      alertId: `sla.fan-waiting:${s._id}:1`, ruleId: 'sla.fan-waiting', ruleVersion: 1, severity: 'critical', reason: 'waited', labels: [], recommendation: 'reply',
      sessionId: s._id, accountId: s.accountId, chatId: s.chatId, chatterId: s.firstResponderId,
    });
    await intelligence.alerts.bulkWrite([...['ben', 'dev', 'eli', 'cleo'].map(streak), ...sessions.map(waiting)].map((f): { insertOne: { document: AlertDoc } } => ({ insertOne: { document: findingToAlert(f, NOW) } })));
    await intelligence.analyses.bulkWrite(sessions.map((s): { insertOne: { document: AnalysisDoc } } => ({ insertOne: { document: { _id: s._id, sessionId: s._id, at: NOW, rules: { labels: [], recommendations: [], alertIds: [], versions: {} }, model: null, modelError: null } } })));

    // What the alert hooks queued about each account (sent or not).
    const deliveries = store.collection<DeliveryDoc>(DELIVERIES_COLLECTION);
    await deliveries.bulkWrite(sessions.map((s, i) => ({ insertOne: { document: {
      _id: `hook_0:${i}`, hookId: 'hook_0', eventId: `msg_${i}`, event: 'opened', alertId: `sla.fan-waiting:${s._id}:1`, accountId: s.accountId, transitionAt: NOW,
      body: '{}', createdAt: NOW, status: i % 2 ? 'pending' : 'delivered', attempts: 1, nextAttemptAt: null, lastAttemptAt: NOW, lastHttpStatus: 204, lastError: null, doneAt: null,
    } } })));

    // What purge-demo does first: the purged account's documents go.
    await rm.sessions.deleteMany({ accountId: PURGED });
    const removed = await intelligence.forgetAccounts([PURGED], ['ben', 'dev', 'eli']);

    expect(removed).toEqual({ alerts: 9 + 2, analyses: 9 });
    const left = await intelligence.alerts.find({}, { sort: { _id: 1 } });
    expect(left.map((a) => a._id).sort()).toEqual([
      'chatter.slow-streak:cleo', 'chatter.slow-streak:eli', ...kept(sessions).map((s) => `sla.fan-waiting:${s._id}:1`),
    ].sort());
    expect((await intelligence.analyses.find({})).map((a) => a._id).sort()).toEqual(kept(sessions).map((s) => s._id).sort());
    expect(await intelligence.forgetAccounts([], ['cleo'])).toEqual({ alerts: 0, analyses: 0 });
    expect(new Set((await deliveries.find({})).map((d) => d.accountId))).toEqual(new Set([KEPT]));
    expect(await deliveries.countDocuments({})).toBe(kept(sessions).length);
  });
});
