// The consumers' standing in their groups reaches /metrics and /api/health: on Kafka, a running
// app exports, per role and group, the joins its consumer had to make again (by reason) and the
// seconds it has gone without progress while records wait (0 once drained), and its health
// names no group while the consumers keep up. What makes them report (a drop, a stall) is
// tested in test/adapters/kafka-rounds.int.test.ts and kafka-round-limits.test.ts.
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { topology } from '../../src/topology.js';
import { deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { messageBody, postWebhook } from '../support/platform.js';
import { scrape, total } from '../support/prometheus.js';
import { eventually } from '../support/wait.js';

const running: RunningApp[] = [];
afterAll(async () => {
  await Promise.all(running.map((a) => a.stop()));
  removeDataDirs();
});

describe('consumer health in /metrics and /api/health', () => {
  it('exports rejoins by reason and seconds stalled per role and group, 0 once drained', async () => {
    const env = await deploymentEnv('kafka+mongo', { KAFKA_SESSION_TIMEOUT_MS: '6000' });
    const app = await startWithEnv(env);
    running.push(app);
    const url = app.url ?? '';
    const t = topology(env.TOPIC_PREFIX);
    for (let i = 0; i < 5; i++) {
      const body = messageBody({ accountId: 'acct_ch', fanId: 900 + i, messageId: 8_000_000 + i, createdAt: new Date(Date.parse('2026-11-20T10:00:00Z') + i * 1000).toISOString(), text: `hi ${i}`, direction: 'received' });
      expect((await postWebhook(url, body, { key: `evt_ch_${i}` })).status).toBe(200);
    }
    const after = await eventually(async () => {
      const s = await scrape(url);
      return total(s, 'convops_consumer_lag_records') === 0 && total(s, 'convops_store_write_seconds_count') > 0 ? s : undefined;
    }, 30_000, 'lag drained');
    const stalled = after.filter((s) => s.name === 'convops_consumer_stalled_seconds');
    expect(stalled.map((s) => `${s.labels.role}=${s.labels.group}`).sort()).toEqual([
      `intelligence=${t.intelligenceGroup}`, `processor=${t.processorGroup}`, `projector=${t.projectorGroup}`,
    ]);
    expect(stalled.every((s) => s.value === 0)).toBe(true);
    const rejoins = after.filter((s) => s.name === 'convops_consumer_rejoins_total' && s.labels.role === 'processor');
    expect(rejoins.map((s) => s.labels.reason).sort()).toEqual(['crashed', 'dropped', 'rebalance']);
    expect(total(after, 'convops_consumer_rejoins_total', { reason: 'dropped' })).toBe(0);
    const health = await (await fetch(`${url}/api/health`)).json() as { problems: { component: string; group?: string }[] };
    expect(health.problems.filter((p) => p.group)).toEqual([]);
    // An API process whose workers run elsewhere judges the groups by their offsets: they moved, nothing waits.
    const api = await startWithEnv({ ...env, ROLES: 'api' });
    running.push(api);
    for (let i = 0; i < 2; i++) {
      const seen = await (await fetch(`${api.url ?? ''}/api/health`)).json() as { problems: { group?: string }[]; components: { processor: { lag: number | null } } };
      expect(seen.components.processor.lag).toBe(0);
      expect(seen.problems.filter((p) => p.group)).toEqual([]);
    }
  });
});
