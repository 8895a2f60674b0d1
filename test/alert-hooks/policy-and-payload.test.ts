// The pure parts of alert hooks: the retry schedule (property-tested: fast-check prints the
// seed of a failure), the two body formats, and the address guard's judgement of addresses.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { refusedAddress, urlProblem } from '../../src/alert-hooks/destination.js';
import { deliveryBody } from '../../src/alert-hooks/payload.js';
import { nextAttemptAt, retryDelayMs } from '../../src/alert-hooks/retry-policy.js';
import { signature } from '../../src/alert-hooks/signing.js';
import { outboxEntry } from '../../src/pipeline/alert-doc.js';

describe('the retry schedule', () => {
  const policy = fc.record({ baseMs: fc.integer({ min: 10, max: 60_000 }), maxDelayMs: fc.integer({ min: 60_000, max: 3_600_000 }), windowMs: fc.integer({ min: 1, max: 86_400_000 }) });

  it('never makes a gap shorter than the one before while below the cap, and stays within [d/2, d]', () => {
    fc.assert(fc.property(policy, fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (p, n, r1, r2) => {
      const full = Math.min(p.maxDelayMs, p.baseMs * 2 ** (n - 1));
      const gap = retryDelayMs(p, n, r1);
      expect(gap).toBeGreaterThanOrEqual(Math.floor(full / 2));
      expect(gap).toBeLessThanOrEqual(full);
      if (p.baseMs * 2 ** n <= p.maxDelayMs) expect(retryDelayMs(p, n + 1, r2)).toBeGreaterThanOrEqual(gap);
    }));
  });

  it('keeps trying until the window is over, and only then gives up', () => {
    fc.assert(fc.property(policy, fc.integer({ min: 0, max: 1e12 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 2 * 86_400_000 }), (p, createdAt, attempts, elapsed) => {
      const next = nextAttemptAt(p, createdAt, attempts, createdAt + elapsed, 0.5);
      if (elapsed < p.windowMs) expect(next).toBeGreaterThan(createdAt + elapsed);
      else expect(next).toBeNull();
    }));
  });

  it('with the defaults, retries for at least an hour', () => {
    const p = { baseMs: 5_000, maxDelayMs: 600_000, windowMs: 3_600_000 };
    for (const r of [0, 0.5, 0.999]) {
      let at = 0;
      let attempts = 1;
      for (let next = nextAttemptAt(p, 0, attempts, at, r); next !== null; next = nextAttemptAt(p, 0, ++attempts, at, r)) at = next;
      expect(at).toBeGreaterThanOrEqual(3_600_000);
      expect(attempts).toBeGreaterThan(8);
    }
  });
});

describe('bodies', () => {
  const entry = outboxEntry('opened', Date.UTC(2026, 10, 27, 9), {
    _id: 'sla.fan-waiting:acct_1:42:1', ruleId: 'sla.fan-waiting', severity: 'critical', reason: 'fan waits 7m <@U123> & <https://evil.example|click>',
    recommendation: 'Reply now', labels: ['sla'], accountId: 'acct_1', sessionId: 'acct_1:42:1', chatId: '42', chatterId: null, ackedBy: null,
  });

  it('standard: a Standard Webhooks event with the alert as the transition left it', () => {
    expect(JSON.parse(deliveryBody(entry, 'standard'))).toEqual({
      type: 'alert.opened', timestamp: '2026-11-27T09:00:00.000Z',
      data: {
        id: 'sla.fan-waiting:acct_1:42:1', ruleId: 'sla.fan-waiting', severity: 'critical', reason: entry.alert.reason, recommendation: 'Reply now', labels: ['sla'],
        accountId: 'acct_1', sessionId: 'acct_1:42:1', chatId: '42', chatterId: null, ackedBy: null, event: 'opened', eventId: entry.id,
      },
    });
  });

  it('slack: one text whose quoted words cannot mention or link', () => {
    const body = JSON.parse(deliveryBody(entry, 'slack')) as { text: string };
    expect(Object.keys(body)).toEqual(['text']);
    expect(body.text).toContain('*critical* alert opened: fan waits 7m &lt;@U123&gt; &amp; &lt;https://evil.example|click&gt; (account acct_1)');
    expect(body.text).not.toMatch(/<[@h]/);
    expect(body.text).toContain('\n> Reply now');
  });

  it('one webhook-id per transition: the same for the same alert, event and time, another otherwise', () => {
    const again = outboxEntry('opened', entry.at, { ...entry.alert, _id: entry.alert.id });
    expect(again.id).toBe(entry.id);
    expect(outboxEntry('resolved', entry.at, { ...entry.alert, _id: entry.alert.id }).id).not.toBe(entry.id);
    expect(entry.id).toMatch(/^msg_[A-Za-z0-9_-]{27}$/);
  });

  it('signs id.timestamp.body with the decoded secret (the Standard Webhooks test vector)', () => {
    // From the Standard Webhooks specification's reference libraries.
    expect(signature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}'))
      .toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });
});

describe('the address guard', () => {
  it.each([
    ['8.8.8.8', null], ['2606:4700::1111', null], ['127.0.0.1', /loopback/], ['::1', /loopback/], ['10.2.3.4', /private/], ['172.16.0.1', /private/],
    ['192.168.1.1', /private/], ['169.254.169.254', /linkLocal/], ['fe80::1', /linkLocal/], ['fd00::1', /uniqueLocal/], ['100.64.0.1', /carrierGradeNat/],
    ['0.0.0.0', /unspecified/], ['::', /unspecified/], ['::ffff:127.0.0.1', /^127\.0\.0\.1 is a loopback/], ['224.0.0.1', /multicast/], ['192.0.2.1', /reserved/],
    // IPv6 that carries IPv4 is judged by the IPv4 host: NAT64 (DNS64 networks) and 6to4.
    ['64:ff9b::8.8.8.8', null], ['64:ff9b::10.0.0.1', /^10\.0\.0\.1 is a private/], ['2002:808:808::1', null], ['2002:a9fe:a9fe::1', /^169\.254\.169\.254 is a linkLocal/],
    ['::7f00:1', /IPv4-compatible/], ['2001::1', /teredo/],
  ])('%s', (address, refused) => {
    const why = refusedAddress(address);
    if (refused === null) expect(why).toBeNull();
    else expect(why).toMatch(refused);
  });

  it('judges a registered URL by its scheme, credentials and literal address; names pass until they are resolved', () => {
    expect(urlProblem('https://hooks.slack.com/services/T/B/x', false)).toBeNull();
    expect(urlProblem('http://10.0.0.5/hook', true)).toBeNull();
    expect(urlProblem('http://10.0.0.5/hook', false)).toMatch(/private/);
    expect(urlProblem('http://[::1]:8080/', false)).toMatch(/loopback/);
    expect(urlProblem('http://foo.localhost/', false)).toMatch(/localhost/);
    // Loopback by its form, whatever the spelling: a trailing dot names the same host.
    for (const url of ['http://LOCALHOST.:9/', 'http://foo.localhost.:9/', 'http://localhost../', 'http://127.0.0.1.:9/']) expect(urlProblem(url, false), url).toMatch(/localhost|loopback/);
    expect(urlProblem('http://LOCALHOST.:9/', true)).toBeNull();
    expect(urlProblem('http://2130706433/', false)).toMatch(/loopback/); // 127.0.0.1 as one number: URL parsing normalises it
    expect(urlProblem('javascript:alert(1)', false)).toMatch(/not http/);
  });
});
