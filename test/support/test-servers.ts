// The test servers a file needs, started on its first ask (test/infra/provisioner.ts) and
// shared by every file of the run. Each answer is kept for the worker's life.
import { inject } from 'vitest';
import type { Provisioned } from '../infra/provisioner.js';

const asked = new Map<Provisioned, Promise<string>>();

function provisioned(what: Provisioned): Promise<string> {
  let pending = asked.get(what);
  if (!pending) {
    pending = (async () => {
      const res = await fetch(`${inject('provisioner')}/${what}`);
      const body = (await res.json()) as { url?: string; error?: string };
      if (!res.ok || body.url === undefined) throw new Error(`test servers: ${body.error ?? `${what}: status ${res.status}`}`);
      return body.url;
    })();
    asked.set(what, pending);
    pending.catch(() => asked.delete(what));
  }
  return pending;
}

/** The test Kafka's bootstrap list (`host:port`), started on the run's first ask. */
export function kafkaBrokers(): Promise<string> {
  return provisioned('kafka');
}

/** The test Mongo-wire server's URL, started on the run's first ask. */
export function mongoUrl(): Promise<string> {
  return provisioned('mongo');
}

/** The built service's entry module (test/infra/service-build.ts), built on the run's first ask. */
export function serviceEntry(): Promise<string> {
  return provisioned('service');
}

/**
 * Whether this run is the unit tier (`npm run test:unit`): no Java, no child processes. Test
 * files that run on both deployments or both stores leave out the variants that need a server.
 */
export function unitTier(): boolean {
  return inject('tier') === 'unit';
}

/** `variants` where they need a server, in a list of a file's variants: none in the unit tier. */
export function withServers<T>(variants: readonly T[]): readonly T[] {
  return unitTier() ? [] : variants;
}
