// A refused setting is named with its reason and the value it was given, cut short: an
// environment variable can hold megabytes, and the error goes to the log and the terminal.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const refusal = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`accepted ${Object.keys(env).join(', ')}`);
};

describe('configuration errors', () => {
  it('show a long refused value cut short, with its length, for every kind of setting', () => {
    const huge = 'x'.repeat(1_000_000);
    for (const name of ['ROUND_LINGER_MS', 'LOG_LEVEL', 'REPORT_TIMEZONE', 'PLATFORMAPI_BASE_URL', 'TRUST_PROXY', 'KAFKA_BROKERS', 'ROLES', 'KAFKA_MEMBER_NAME']) {
      const message = refusal({ [name]: huge });
      expect(message).toContain(name);
      expect(message.length).toBeLessThan(400);
      expect(message).toContain('(1000000 characters)');
    }
  });

  it('show a short refused value whole', () => {
    expect(refusal({ ROUND_LINGER_MS: '1e308' })).toBe('invalid configuration: ROUND_LINGER_MS must be an integer, got "1e308"');
    expect(refusal({ ROUND_LINGER_MS: '99' })).toBe('invalid configuration: ROUND_LINGER_MS must be between 0 and 50, got 99');
  });
});
