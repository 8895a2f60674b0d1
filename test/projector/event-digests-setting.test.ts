// EVENT_DIGESTS decides whether the projector checks event ids for one content. By default it
// does where acknowledged writes can be lost (MongoDB and Mongo-wire servers), and not on the
// embedded store, whose writes are durable and all-or-nothing, so it never issues an id twice:
// there the check would cost the live pipeline a read and a write per event for nothing.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('EVENT_DIGESTS', () => {
  it('is on with MongoDB and off on the embedded store by default; on and off override; anything else is refused naming it', () => {
    expect(loadConfig({}).eventDigests).toBe(false);
    expect(loadConfig({ MONGO_URL: 'mongodb://127.0.0.1:27017' }).eventDigests).toBe(true);
    expect(loadConfig({ EVENT_DIGESTS: 'on' }).eventDigests).toBe(true);
    expect(loadConfig({ MONGO_URL: 'mongodb://127.0.0.1:27017', EVENT_DIGESTS: 'off' }).eventDigests).toBe(false);
    expect(() => loadConfig({ EVENT_DIGESTS: 'yes' })).toThrow(ConfigError);
    expect(() => loadConfig({ EVENT_DIGESTS: 'yes' })).toThrow(/EVENT_DIGESTS/);
  });
});
