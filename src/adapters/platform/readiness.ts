// Live readiness of the platform's REST API: `GET /api/whoami` with the configured key, at
// most once per `ttlMs`, so discovery and health can say whether backfill and sync would work.
// Redirects are followed only within the base URL's origin (the key goes nowhere else), and
// the answer's body is discarded unread.
import { guardedFetch } from '../http/guarded-fetch.js';

export interface PlatformReadiness {
  readonly configured: boolean;
  ready(): Promise<boolean>;
}

export function platformReadiness(baseUrl: string, apiKey: string | null, ttlMs = 30_000, timeoutMs = 3_000): PlatformReadiness {
  let cached: { at: number; ok: boolean } | null = null;
  let inFlight: Promise<boolean> | null = null;
  const probe = async (): Promise<boolean> => {
    try {
      const res = await guardedFetch(`${baseUrl}/api/whoami`, {
        headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' },
        timeoutMs,
        allowedOrigin: new URL(baseUrl).origin,
        readBody: false,
      });
      return res.ok;
    } catch {
      return false;
    }
  };
  return {
    configured: apiKey !== null,
    async ready() {
      if (apiKey === null) return false;
      if (cached && Date.now() - cached.at < ttlMs) return cached.ok;
      inFlight ??= probe().then((ok) => {
        cached = { at: Date.now(), ok };
        inFlight = null;
        return ok;
      });
      return inFlight;
    },
  };
}
