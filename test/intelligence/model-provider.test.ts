// The HTTP model provider against a local fake of an OpenAI-compatible API that also answers
// with errors, slowly, and with garbage.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpModelProvider, ModelOutputRejected, PROMPT_VERSION, modelStatus, parseModelAnswer } from '../../src/intelligence/model-provider.js';
import type { FactMessage } from '../../src/intelligence/rules.js';

type Mode = 'ok' | 'garbage' | 'wrong-shape' | 'fail-twice' | 'slow' | 'always-500' | 'unauthorized';

const GOOD = { labels: [{ label: 'churn-risk', confidence: 0.8 }], summary: 'Fan is unhappy.', recommendations: ['Reassure the fan.'] };

function fake(): Promise<{ server: Server; url: string; state: { mode: Mode; calls: number; active: number; maxActive: number; auth: string[] } }> {
  const state = { mode: 'ok' as Mode, calls: 0, active: 0, maxActive: 0, auth: [] as string[] };
  const server = createServer((req, res) => {
    state.calls++;
    state.active++;
    state.maxActive = Math.max(state.maxActive, state.active);
    state.auth.push(String(req.headers.authorization));
    req.resume();
    const send = (status: number, body: unknown) => {
      setTimeout(() => {
        state.active--;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(typeof body === 'string' ? body : JSON.stringify(body));
      }, 30);
    };
    const content = (c: string) => ({ choices: [{ message: { role: 'assistant', content: c } }] });
    switch (state.mode) {
      case 'ok': return send(200, content(JSON.stringify(GOOD)));
      case 'garbage': return send(200, content('Sure! Here are the labels: churn risk (high)'));
      case 'wrong-shape': return send(200, content(JSON.stringify({ labels: [{ label: 'Churn Risk!!', confidence: 7 }], summary: 'x', recommendations: [] })));
      case 'fail-twice': return state.calls % 3 === 0 ? send(200, content(JSON.stringify(GOOD))) : send(503, { error: 'busy' });
      case 'slow': return setTimeout(() => send(200, content(JSON.stringify(GOOD))), 2000);
      case 'always-500': return send(500, { error: 'boom' });
      case 'unauthorized': return send(401, { error: 'bad key' });
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const addr = server.address();
    resolve({ server, url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/v1`, state });
  }));
}

const transcript: FactMessage[] = [{ messageId: '1', sender: 'fan', chatterId: null, text: 'this is boring, I will unsubscribe', priceCents: 0, sentAt: 0 }];

describe('model provider', () => {
  let f: Awaited<ReturnType<typeof fake>>;
  beforeAll(async () => { f = await fake(); });
  afterAll(() => { f.server.close(); });
  const provider = (extra: Partial<ConstructorParameters<typeof HttpModelProvider>[0]> = {}) =>
    new HttpModelProvider({ baseUrl: f.url, apiKey: 'sk-test', model: 'fake-1', timeoutMs: 1000, maxRetries: 2, concurrency: 2, ...extra });

  it('is enabled only when every MODEL_* setting is present, and says what is missing otherwise', () => {
    expect(modelStatus({ baseUrl: 'http://m', apiKey: 'k', model: 'x' })).toEqual({ enabled: true, model: 'x' });
    expect(modelStatus({ baseUrl: null, apiKey: null, model: null })).toMatchObject({ enabled: false, reason: expect.stringContaining('not configured') });
    expect(modelStatus({ baseUrl: 'http://m', apiKey: null, model: 'x' })).toEqual({ enabled: false, reason: 'partially configured: MODEL_API_KEY missing, so the model provider is off' });
  });

  it('returns labels with the model and prompt version, sending the key', async () => {
    f.state.mode = 'ok';
    const labels = await provider().label(transcript);
    expect(labels).toEqual({ ...GOOD, model: 'fake-1', promptVersion: PROMPT_VERSION });
    expect(f.state.auth.at(-1)).toBe('Bearer sk-test');
  });

  it('rejects garbage and answers of the wrong shape without retrying them', async () => {
    for (const mode of ['garbage', 'wrong-shape'] as const) {
      f.state.mode = mode;
      const before = f.state.calls;
      await expect(provider().label(transcript)).rejects.toBeInstanceOf(ModelOutputRejected);
      expect(f.state.calls - before).toBe(1);
    }
    expect(() => parseModelAnswer('{"labels":[],"summary":"x","recommendations":[],"extra":1}')).toThrow(ModelOutputRejected);
    expect(parseModelAnswer('```json\n{"labels":[],"summary":"fine","recommendations":[]}\n```')).toEqual({ labels: [], summary: 'fine', recommendations: [] });
  });

  it('retries 5xx a bounded number of times, then gives up', async () => {
    f.state.mode = 'fail-twice';
    f.state.calls = 0;
    await expect(provider().label(transcript)).resolves.toMatchObject({ labels: GOOD.labels });
    expect(f.state.calls).toBe(3);
    f.state.mode = 'always-500';
    f.state.calls = 0;
    await expect(provider({ maxRetries: 1 }).label(transcript)).rejects.toThrow(/500/);
    expect(f.state.calls).toBe(2);
    f.state.mode = 'unauthorized';
    f.state.calls = 0;
    await expect(provider().label(transcript)).rejects.toThrow(/refused/);
    expect(f.state.calls).toBe(1);
  });

  it('times out slow answers and keeps to its concurrency', async () => {
    f.state.mode = 'slow';
    const started = Date.now();
    await expect(provider({ timeoutMs: 200, maxRetries: 0 }).label(transcript)).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1500);
    // Let the timed-out request finish on the server before counting concurrency.
    while (f.state.active > 0) await new Promise((r) => setTimeout(r, 50));
    f.state.mode = 'ok';
    f.state.maxActive = 0;
    const p = provider({ concurrency: 2 });
    await Promise.all(Array.from({ length: 8 }, () => p.label(transcript)));
    expect(f.state.maxActive).toBeLessThanOrEqual(2);
    expect(f.state.maxActive).toBe(2);
  });
});
