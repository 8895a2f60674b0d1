// Per-account totals are right only when session-events has as many partitions as inbound
// (see checkPartitions). A deployment whose existing topics disagree must refuse to start, say
// which topics and counts, and name the settings that fix it, rather than undercount quietly.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLog } from '../../src/adapters/index.js';
import type { TopicSpec } from '../../src/adapters/log/log.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/support/logger.js';
import { topology, TopologyError } from '../../src/topology.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { uniqueName } from '../support/wait.js';
import { serviceArgs } from '../support/service-args.js';

afterAll(() => removeDataDirs());

/** Creates topics through the deployment's own log adapter, as an operator or an earlier run would have. */
async function precreate(env: Record<string, string>, topics: readonly TopicSpec[]): Promise<void> {
  const log = createLog(loadConfig(env), createLogger('silent'));
  try {
    await log.createTopics(topics);
  } finally {
    await log.close();
  }
}

const topicsOf = (env: Record<string, string>) => topology(env.TOPIC_PREFIX ?? '', env.INBOUND_TOPIC);

describe.each(DEPLOYMENTS)('partition check (%s)', (kind) => {
  it('refuses to start when session-events already exists with another partition count than inbound', async () => {
    const env = await deploymentEnv(kind, { INBOUND_PARTITIONS: '4' });
    const t = topicsOf(env);
    await precreate(env, [{ name: t.sessionEvents, partitions: 2 }]);
    const started = startWithEnv(env);
    await expect(started).rejects.toBeInstanceOf(TopologyError);
    await expect(started).rejects.toThrow(`session-events topic '${t.sessionEvents}' has 2 partitions but inbound '${t.inbound}' has 4; they must match`);
    await expect(started).rejects.toThrow(/INBOUND_PARTITIONS \(4\) applies only to topics convops creates: set INBOUND_PARTITIONS=4 and a TOPIC_PREFIX/);

    // The way out the message names: a fresh prefix that keeps reading the same inbound log.
    const fixed = await startWithEnv({ ...env, TOPIC_PREFIX: `${uniqueName('fix')}.`, INBOUND_TOPIC: t.inbound, INBOUND_PARTITIONS: '4' });
    await fixed.stop();
  });

  it('names INBOUND_TOPIC when the inbound log of another prefix has another count than the session-events it gets', async () => {
    const env = await deploymentEnv(kind);
    const old = `${uniqueName('old')}.inbound`;
    await precreate(env, [{ name: old, partitions: 3 }]);
    const next = { ...env, TOPIC_PREFIX: `${uniqueName('new')}.`, INBOUND_TOPIC: old, INBOUND_PARTITIONS: '5' };
    const err = await startWithEnv(next).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(TopologyError);
    expect((err as TopologyError).message).toContain(`session-events topic '${topicsOf(next).sessionEvents}' has 5 partitions but inbound '${old}' (INBOUND_TOPIC) has 3`);
    expect((err as TopologyError).settings).toEqual(['INBOUND_PARTITIONS', 'INBOUND_TOPIC', 'TOPIC_PREFIX']);
  });

  it('starts when existing topics agree with each other, whatever INBOUND_PARTITIONS says', async () => {
    const env = await deploymentEnv(kind, { INBOUND_PARTITIONS: '4' });
    const t = topicsOf(env);
    await precreate(env, [{ name: t.inbound, partitions: 3 }, { name: t.sessionEvents, partitions: 3 }]);
    const app = await startWithEnv(env);
    try {
      expect((await fetch(`${app.url}/api/health`)).status).toBe(200);
      expect(await app.log.partitionCount(t.sessionEvents)).toBe(3);
    } finally {
      await app.stop();
    }
  });
});

describe('the process', () => {
  it('prints the refusal as one line and exits non-zero', async () => {
    const env = await deploymentEnv('embedded', { INBOUND_PARTITIONS: '4' });
    await precreate(env, [{ name: topicsOf(env).sessionEvents, partitions: 2 }]);
    // Embedded means no broker and no database: the test servers' addresses must not leak in.
    const { KAFKA_BROKERS: _k, MONGO_URL: _m, ...inherited } = process.env;
    const root = join(import.meta.dirname, '../..');
    const child = spawn(process.execPath, await serviceArgs(), {
      cwd: root, env: { ...inherited, ...env }, stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
    // A service that starts after all would run forever: stop it, and fail on the exit code.
    const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await new Promise<number | null>((res) => child.once('exit', (c) => res(c)));
    clearTimeout(guard);
    expect(code).toBe(2);
    expect(stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^invalid topology: session-events topic 'session-events' has 2 partitions but inbound 'inbound' has 4; .*INBOUND_PARTITIONS/)]);
  });
});
