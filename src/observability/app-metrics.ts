// What this app reports at scrape time, by the roles it runs: consumer lag per partition and
// received → visible freshness where the consumers run, replay progress where replays run,
// backfill progress and open alerts where the API runs, model calls where intelligence runs.
// Each read is bounded in time, so a slow store makes a scrape thin, not late.
import type { Log } from '../adapters/log/log.js';
import type { DocumentStore } from '../adapters/store/store.js';
import type { Config } from '../config.js';
import type { HttpModelProvider } from '../intelligence/model-provider.js';
import { ALERTS_COLLECTION, type AlertDoc } from '../intelligence/intelligence.js';
import type { PipelineControl } from '../pipeline-control.js';
import { JOBS_COLLECTION, type ReplayJobDoc } from '../projector/replay.js';
import type { BackfillJobDoc } from '../backfill/backfill-jobs.js';
import { SET_ASIDE_COLLECTION, SET_ASIDE_STAGES } from '../pipeline/set-aside.js';
import { CHAT_LEDGER_COLLECTION } from '../processor/chat-ledger.js';
import { STATE_ROLLBACKS_COLLECTION } from '../processor/rollback.js';
import { EVENT_DIGESTS_COLLECTION } from '../projector/event-digests.js';
import { DELIVERIES_COLLECTION } from '../alert-hooks/hook-docs.js';
import type { Topology } from '../topology.js';
import type { GaugeSample, Metrics } from './metrics.js';

const READ_TIMEOUT_MS = 2000;

function within<T>(p: Promise<T>, ms = READ_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error('timed out')), ms); }),
  ]).finally(() => clearTimeout(timer));
}

export interface AppMetricsSources {
  readonly config: Config;
  readonly log: Log;
  readonly store: DocumentStore;
  readonly topology: Topology;
  readonly pipeline: PipelineControl;
  readonly provider: HttpModelProvider | null;
}

export function registerAppMetrics(metrics: Metrics, src: AppMetricsSources): void {
  const { roles } = src.config;
  // The live definitions generation's groups, as this process's stages last started.
  const groupsNow = () => {
    const t = src.pipeline.liveTopology();
    return [
      { role: 'processor', group: t.processorGroup, topic: t.inbound, atEnd: false },
      { role: 'projector', group: t.projectorGroup, topic: t.sessionEvents, atEnd: false },
      { role: 'intelligence', group: t.intelligenceGroup, topic: t.sessionEvents, atEnd: true },
    ].filter((g) => roles.has(g.role as never));
  };
  const groups = groupsNow();

  if (groups.length > 0) {
    metrics.gauge('consumer_lag_records', 'Records a role\'s consumer group has not consumed yet, per partition', ['role', 'partition'], async () => {
      const samples: GaugeSample[] = [];
      for (const g of groupsNow()) {
        const [ends, committed] = await within(Promise.all([src.log.endOffsets(g.topic), src.log.committedOffsets(g.group, g.topic)]));
        for (const [p, end] of Object.entries(ends)) {
          // A group that starts at the end has nothing waiting before its first commit.
          const from = committed[Number(p)] ?? (g.atEnd ? end : 0);
          samples.push({ labels: { role: g.role, partition: p }, value: Math.max(0, end - from) });
        }
      }
      return samples;
    });
    metrics.gauge('freshness_seconds', 'Received → processed (processor) and received → visible (projector) over the last window, by quantile', ['role', 'quantile'], () => {
      const c = src.pipeline.counters();
      const samples: GaugeSample[] = [];
      for (const [role, status] of [['processor', c.processor], ['projector', c.projector]] as const) {
        if (!status) continue;
        const f = status.freshness;
        for (const [q, ms] of [['0.5', f.p50Ms], ['0.99', f.p99Ms], ['1', f.maxMs]] as const) {
          if (ms !== null) samples.push({ labels: { role, quantile: q }, value: ms / 1000 });
        }
      }
      return samples;
    });
  }

  if (groups.length > 0) {
    // The consumers' standing in their groups, from what the log adapter told each stage.
    metrics.counterFrom('consumer_rejoins_total', 'Joins a stage\'s consumer had to make again, by reason: rebalance (the group changed), dropped (the group went on without it: a round longer than the session), crashed (the client gave up and was started again)', ['role', 'group', 'reason'], () =>
      src.pipeline.stageHealth().flatMap((h) => Object.entries(h.rejoinCounts()).map(([reason, value]) => ({ labels: { role: h.stage, group: h.group, reason }, value }))));
    metrics.gauge('consumer_stalled_seconds', 'Seconds since a stage\'s consumer last committed while records wait for it; 0 when none wait', ['role', 'group'], () =>
      src.pipeline.stageHealth().map((h) => ({ labels: { role: h.stage, group: h.group }, value: h.stalledSeconds() })));
  }

  if (roles.has('projector')) {
    metrics.counterFrom('sessions_swept_total', 'Sessions the projector closed in the read models at their deadline, ahead of the processor\'s close (embedded store only)', [], () =>
      [{ labels: {}, value: src.pipeline.counters().projector?.sessionsSwept ?? 0 }]);
  }

  if (roles.has('processor') || roles.has('projector')) {
    const tally = src.pipeline.setAsideTally;
    metrics.counterFrom('set_aside_total', 'Records (processor) and session events (projector) this process set aside, by stage (normalise, step, fold, write): one per decision, not per redelivery', ['stage'], () =>
      SET_ASIDE_STAGES.map((stage) => ({ labels: { stage }, value: tally.get(stage) })));
  }

  // Per-record and per-event bookkeeping, and the rule that bounds each (docs/operations.md,
  // "Bookkeeping"): read from the store's own counts, so a scrape costs the same at any size.
  const bookkeeping = [
    ...(roles.has('processor') ? [CHAT_LEDGER_COLLECTION, STATE_ROLLBACKS_COLLECTION] : []),
    ...(roles.has('projector') && src.config.eventDigests ? [EVENT_DIGESTS_COLLECTION] : []),
    ...(roles.has('intelligence') ? [DELIVERIES_COLLECTION] : []),
  ];
  if (bookkeeping.length > 0) {
    metrics.gauge('bookkeeping_documents', 'Documents in each bookkeeping collection: the chat ledger (one per record id, kept for dedupe without a window), chat-state rollbacks, event digests (trimmed after EVENT_DIGESTS_KEEP_DAYS), alert hook deliveries (trimmed 30 days after they are done)', ['collection'], async () => {
      const counts = await within(Promise.all(bookkeeping.map((name) => src.store.collection(name).estimatedCount())));
      return bookkeeping.map((collection, i) => ({ labels: { collection }, value: counts[i] ?? 0 }));
    });
  }

  const examined = src.store.documentsExamined?.bind(src.store);
  if (examined) {
    metrics.counterFrom('store_documents_examined_total', 'Documents the store read to find matches (queries and conditional writes), per collection, since it opened (embedded store only): a figure that climbs with history for the same reads is a scan', ['collection'], () =>
      [...examined()].map(([collection, value]) => ({ labels: { collection }, value })));
  }

  if (roles.has('processor')) {
    metrics.counterFrom('chat_state_rollbacks_total', 'Chat states the store handed back older than the processor had stored (lost writes), each re-derived from inbound instead of numbering its events again (since the processor stage started)', [], () =>
      [{ labels: {}, value: src.pipeline.counters().processor?.stateRollbacks ?? 0 }]);
    metrics.counterFrom('records_rederived_total', 'Inbound records stepped again to re-derive rolled-back chat states (their events not appended again)', [], () =>
      [{ labels: {}, value: src.pipeline.counters().processor?.recordsRederived ?? 0 }]);
  }

  if (src.pipeline.replay) {
    const jobs = src.store.collection<ReplayJobDoc>(JOBS_COLLECTION);
    const running = () => within(jobs.find({ kind: 'replay', state: { $in: ['building', 'switching'] } }, { limit: 5 }));
    metrics.gauge('replay_events_applied', 'Events a running replay has applied so far', ['job', 'state'], async () =>
      (await running()).map((j) => ({ labels: { job: j._id, state: j.state }, value: j.eventsApplied })));
    metrics.gauge('replay_lag_records', 'Events a running replay still has to apply', ['job'], async () =>
      (await running()).filter((j) => j.lag !== null).map((j) => ({ labels: { job: j._id }, value: j.lag ?? 0 })));
  }

  if (roles.has('api')) {
    const jobs = src.store.collection<BackfillJobDoc>(JOBS_COLLECTION);
    metrics.gauge('backfill_progress', 'Running backfill jobs: chats, messages and transactions fetched, and requests made so far', ['job', 'kind', 'counter'], async () => {
      const running = await within(jobs.find({ kind: { $in: ['backfill', 'backfill-transactions'] }, state: 'running' }, { limit: 20 }));
      return running.flatMap((j) => (['chats', 'messages', 'transactions', 'requests'] as const)
        .map((counter) => ({ labels: { job: j._id, kind: j.kind, counter }, value: j.progress[counter] })));
    });
    const setAside = src.store.collection(SET_ASIDE_COLLECTION);
    metrics.gauge('set_aside_stored', 'Set-aside records kept in the store now (whichever process set them aside), by stage; none once each is retried or dropped', ['stage'], async () => {
      const counts = await within(Promise.all(SET_ASIDE_STAGES.map((stage) => setAside.countDocuments({ stage }))));
      return SET_ASIDE_STAGES.map((stage, i) => ({ labels: { stage }, value: counts[i] ?? 0 }));
    });
    const alerts = src.store.collection<AlertDoc>(ALERTS_COLLECTION);
    metrics.gauge('alerts_open', 'Alerts open (not acknowledged, not resolved), by severity', ['severity'], async () => {
      const severities = ['info', 'warning', 'critical'] as const;
      const counts = await within(Promise.all(severities.map((severity) => alerts.countDocuments({ status: 'open', severity }))));
      return severities.map((severity, i) => ({ labels: { severity }, value: counts[i] ?? 0 }));
    });
  }

  if (roles.has('intelligence')) {
    const hooks = () => src.pipeline.alertHooks;
    metrics.counterFrom('alert_hook_deliveries_total', 'Alert hook delivery outcomes in this process: delivered (2xx), retried (an attempt failed and is due again), failed (given up: the retry window is over or the destination is refused), dropped (its hook was disabled or deleted first)', ['outcome'], () => {
      const c = hooks()?.counters;
      return c ? (['delivered', 'retried', 'failed', 'dropped'] as const).map((outcome) => ({ labels: { outcome }, value: c[outcome] })) : [];
    });
    metrics.counterFrom('alert_hooks_disabled_total', 'Alert hooks this process disabled because their deliveries kept failing', [], () => {
      const c = hooks()?.counters;
      return c ? [{ labels: {}, value: c.hooksDisabled }] : [];
    });
    metrics.gauge('alert_hook_queue_depth', 'Alert hook work waiting: deliveries pending (first attempt or retry), and alerts whose transitions are not yet turned into deliveries', ['kind'], async () => {
      const h = hooks();
      if (!h) return [];
      const depth = await within(h.queueDepth());
      return [{ labels: { kind: 'deliveries' }, value: depth.deliveries }, { labels: { kind: 'alerts' }, value: depth.alerts }];
    });
  }

  const provider = src.provider;
  if (provider && roles.has('intelligence')) {
    metrics.counterFrom('model_calls_total', 'Model provider analyses, by outcome (ok, failed); retries are in model_requests_total', ['outcome'], () =>
      [{ labels: { outcome: 'ok' }, value: provider.outcomes.ok }, { labels: { outcome: 'failed' }, value: provider.outcomes.failed }]);
    metrics.counterFrom('model_requests_total', 'HTTP requests to the model provider, retries included', [], () => [{ labels: {}, value: provider.calls }]);
  }
}
