// PipelineControl.fenced, the fence purge-demo runs in (issue 27 item 8, issue 30): refusals,
// drain timeout, a failing purge that leaves the consumers running, shutdown in the middle.
// What purge-demo removes through the route is in test/http/demo.int.test.ts.
import { afterAll, describe, expect, it } from 'vitest';
import { createLog, createStore } from '../../src/adapters/index.js';
import type { Log } from '../../src/adapters/log/log.js';
import { loadConfig } from '../../src/config.js';
import { createIntelligence } from '../../src/intelligence/index.js';
import { DrainTimeoutError, PipelineBusyError, PipelineControl } from '../../src/pipeline-control.js';
import { createLogger } from '../../src/support/logger.js';
import { topology as makeTopology } from '../../src/topology.js';
import { deploymentEnv, removeDataDirs } from '../support/deployments.js';
import { eventually } from '../support/wait.js';

describe('PipelineControl.fenced', () => {
  const env = (extra: Record<string, string> = {}): Promise<Record<string, string>> => deploymentEnv('embedded', { ALERT_SWEEP_SEC: '0', ...extra });
  const opened: { pipeline: PipelineControl; log: Log; close: () => Promise<void> }[] = [];
  afterAll(async () => {
    for (const o of opened) await o.close();
    removeDataDirs();
  });

  /** Calls through to `target`, except the methods `override` gives while it gives them. */
  function intercept<T extends object>(target: T, override: (key: string | symbol) => unknown): T {
    return new Proxy(target, {
      get(t, key) {
        const o = override(key);
        if (o !== undefined) return o;
        const v = Reflect.get(t, key, t) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
      },
    });
  }

  /**
   * A pipeline over an embedded deployment; `stuck` makes the log report no committed offsets
   * (consumers never catch up), `noIndexes` makes every index creation fail (stages cannot start).
   */
  async function pipelineOf(extra: Record<string, string> = {}) {
    const config = loadConfig(await env(extra));
    const logger = createLogger('silent');
    const real = createLog(config, logger);
    const realStore = await createStore(config);
    const topology = makeTopology(config.topicPrefix);
    await real.createTopics([{ name: topology.inbound, partitions: config.inboundPartitions }, { name: topology.sessionEvents, partitions: config.inboundPartitions }]);
    const state = { stuck: false, noIndexes: false };
    const log = intercept(real, (key) => (key === 'committedOffsets' && state.stuck ? async () => ({}) : undefined));
    const store = intercept(realStore, (key) => (key === 'collection'
      ? (name: string) => intercept(realStore.collection(name), (k) => (k === 'createIndex' && state.noIndexes ? async () => { throw new Error('store down'); } : undefined))
      : undefined));
    const pipeline = new PipelineControl(config, log, store, topology, logger, createIntelligence(config, store, logger).intelligence);
    await pipeline.start();
    const entry = { pipeline, log, close: async () => { await pipeline.stop(); await real.close(); await realStore.close(); } };
    opened.push(entry);
    return { ...entry, state, topology };
  }
  const allRunning = (p: PipelineControl): boolean => p.stages().length === 3 && p.stages().every((s) => s.running);
  const counters = (p: PipelineControl) => p.counters();

  it('runs the work with the consumers stopped, and starts them again when it throws', async () => {
    const { pipeline } = await pipelineOf();
    await expect(pipeline.fenced(async () => {
      // Held on purpose: readiness does not flap, but no consumer runs.
      expect(allRunning(pipeline)).toBe(true);
      expect(counters(pipeline)).toEqual({ processor: null, projector: null });
      throw new Error('purge failed half way');
    })).rejects.toThrow('purge failed half way');
    expect(allRunning(pipeline)).toBe(true);
    expect(counters(pipeline).processor).not.toBeNull();
    expect(await pipeline.fenced(async () => 'done')).toBe('done');
    expect(allRunning(pipeline)).toBe(true);
  });

  it('keeps starting the consumers again in the background when the first restart fails', async () => {
    const { pipeline, state } = await pipelineOf();
    await expect(pipeline.fenced(async () => { state.noIndexes = true; })).rejects.toThrow('store down');
    expect(pipeline.stages().every((s) => s.running)).toBe(false);
    // Meanwhile no other purge or reset starts them a second time.
    await expect(pipeline.fenced(async () => undefined)).rejects.toBeInstanceOf(PipelineBusyError);
    state.noIndexes = false;
    await eventually(() => allRunning(pipeline) || undefined, 10_000, 'consumers running again');
    // The stages report running a moment before the background restart has finished starting
    // the rest; a fence is refused (busy) until it has.
    expect(await eventually(() => pipeline.fenced(async () => 'done'), 10_000, 'a fence once the restart is done')).toBe('done');
  });

  it('gives up without stopping anything when the consumers do not catch up, and refuses a second one meanwhile', async () => {
    const { pipeline, log, state, topology } = await pipelineOf();
    await log.append(topology.inbound, [{ key: 'acct_x:1', value: '{}' }]);
    state.stuck = true;
    let ran = false;
    const first = pipeline.fenced(async () => { ran = true; }, 300);
    await expect(pipeline.fenced(async () => undefined)).rejects.toBeInstanceOf(PipelineBusyError);
    await expect(first).rejects.toBeInstanceOf(DrainTimeoutError);
    expect(ran).toBe(false);
    expect(counters(pipeline).processor).not.toBeNull();
    expect(allRunning(pipeline)).toBe(true);
    state.stuck = false;
  });

  it('refuses where the processor and projector do not both run, and stops for good on shutdown', async () => {
    const apiOnly = await pipelineOf({ ROLES: 'api,projector' });
    await expect(apiOnly.pipeline.fenced(async () => undefined)).rejects.toBeInstanceOf(PipelineBusyError);

    const { pipeline, log, state, topology } = await pipelineOf();
    await log.append(topology.inbound, [{ key: 'acct_x:1', value: '{}' }]);
    state.stuck = true;
    const waiting = pipeline.fenced(async () => undefined);
    await new Promise((r) => setTimeout(r, 100));
    await pipeline.stop();
    await expect(waiting).rejects.toBeInstanceOf(PipelineBusyError);
    expect(pipeline.stages()).toEqual([]);
    await expect(pipeline.fenced(async () => undefined)).rejects.toBeInstanceOf(PipelineBusyError);
  });
});
