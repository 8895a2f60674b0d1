// Rotating the webhook secret without a window of 401s: the previous secret is accepted beside
// the new one until a set instant, counted apart so the operator sees when the platform switched,
// and refused from that instant on.
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { signedWith } from '../../src/ingest/signature.js';
import { signBody } from '../../src/ingest/signature.js';
import { startHarness, type Harness } from '../support/app-harness.js';
import { messageBody } from '../support/platform.js';
import { parsePrometheus, total } from '../support/prometheus.js';

const NEW = 'whsec_rotation_new_secret_0001';
const OLD = 'whsec_rotation_old_secret_0001';
const started: Harness[] = [];
afterAll(async () => { await Promise.all(started.map((h) => h.stop())); });

const body = (i: number): string => messageBody({
  accountId: 'acct_rotation', fanId: 500 + i, messageId: 8_100_000 + i, createdAt: new Date(Date.parse('2026-11-20T10:00:00Z') + i * 1000).toISOString(),
  text: `hi ${i}`, direction: 'received',
});
const inAnHour = (): string => new Date(Date.now() + 3_600_000).toISOString();

describe('webhook secret rotation', () => {
  it('accepts the previous secret until its instant, and only before it', () => {
    const raw = Buffer.from('{"event":"x"}');
    const secrets = { current: NEW, previous: { secret: OLD, untilMs: 1_000_000 } };
    expect(signedWith(secrets, raw, signBody(NEW, raw), 2_000_000)).toBe('current');
    expect(signedWith(secrets, raw, signBody(OLD, raw), 999_999)).toBe('previous');
    expect(signedWith(secrets, raw, signBody(OLD, raw), 1_000_000)).toBeNull();
    expect(signedWith(secrets, raw, signBody('whsec_someone_else_000', raw), 0)).toBeNull();
    expect(signedWith({ current: NEW, previous: null }, raw, signBody(OLD, raw), 0)).toBeNull();
  });

  it('refuses settings that would leave the overlap open or ambiguous, naming the variable', () => {
    const until = inAnHour();
    expect(() => loadConfig({ PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS: OLD, PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS_UNTIL: until })).toThrow(/PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS needs PLATFORMAPI_WEBHOOK_SECRET/);
    expect(() => loadConfig({ PLATFORMAPI_WEBHOOK_SECRET: NEW, PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS: OLD })).toThrow(/PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS_UNTIL must be set/);
    expect(() => loadConfig({ PLATFORMAPI_WEBHOOK_SECRET: NEW, PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS_UNTIL: until })).toThrow(/is set without PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS/);
    expect(() => loadConfig({ PLATFORMAPI_WEBHOOK_SECRET: NEW, PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS: NEW, PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS_UNTIL: until })).toThrow(/the same as PLATFORMAPI_WEBHOOK_SECRET/);
    for (const bad of ['2026-12-01T12:00:00', '2026-02-30T12:00:00Z', 'Dec 1 2026', '1795860000']) {
      expect(() => loadConfig({ PLATFORMAPI_WEBHOOK_SECRET: NEW, PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS: OLD, PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS_UNTIL: bad }), bad).toThrow(/PREVIOUS_UNTIL must be an ISO 8601 instant with a zone/);
    }
    const tooLong = new Date(Date.now() + 31 * 86_400_000).toISOString();
    expect(() => loadConfig({ PLATFORMAPI_WEBHOOK_SECRET: NEW, PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS: OLD, PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS_UNTIL: tooLong })).toThrow(/at most 30 days from now/);
    expect(loadConfig({ PLATFORMAPI_WEBHOOK_SECRET: NEW, PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS: OLD, PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS_UNTIL: '2026-12-01T13:00:00+01:00' }).webhookPreviousSecret)
      .toEqual({ secret: OLD, untilMs: Date.parse('2026-12-01T12:00:00Z') });
  });

  it('takes deliveries under either secret during the overlap and counts the previous one apart', async () => {
    const h = await startHarness({ PLATFORMAPI_WEBHOOK_SECRET: NEW, PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS: OLD, PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS_UNTIL: inAnHour() });
    started.push(h);
    expect((await h.webhook(body(1), { secret: NEW, key: 'evt_rot_1' })).status).toBe(200);
    expect((await h.webhook(body(2), { secret: OLD, key: 'evt_rot_2' })).status).toBe(200);
    expect((await h.webhook(body(3), { secret: 'whsec_neither_of_them_01', key: 'evt_rot_3' })).status).toBe(401);
    const samples = parsePrometheus((await h.call<string>('GET', '/metrics')).text);
    expect(total(samples, 'convops_webhooks_total', { outcome: 'accepted' })).toBe(2);
    expect(total(samples, 'convops_webhooks_total', { outcome: 'accepted', reason: 'previous_secret' })).toBe(1);
    expect(total(samples, 'convops_webhooks_total', { outcome: 'refused', reason: 'signature' })).toBe(1);
  });

  it('refuses the previous secret once its instant has passed', async () => {
    const h = await startHarness({ PLATFORMAPI_WEBHOOK_SECRET: NEW, PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS: OLD, PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS_UNTIL: new Date(Date.now() - 1000).toISOString() });
    started.push(h);
    expect((await h.webhook(body(4), { secret: OLD, key: 'evt_rot_4' })).status).toBe(401);
    expect((await h.webhook(body(5), { secret: NEW, key: 'evt_rot_5' })).status).toBe(200);
  });
});
