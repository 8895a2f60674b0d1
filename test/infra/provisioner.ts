// Starts the test servers when a test first asks for them, once per run, however many workers
// ask. The global setup runs this in vitest's main process and hands its address to the test
// files; a file that needs Kafka, the Mongo-wire server or the built service asks it over
// loopback HTTP (test/support/test-servers.ts). So a run of pure and route tests starts no JVM
// and builds nothing, and the full run pays for each server only when the first file that
// needs it starts, beside the files already running.
//
// In the unit tier (CONVOPS_TEST_TIER=unit) every request is refused: a unit test that reaches
// for a server fails and says which, instead of quietly starting Java.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildService } from './service-build.js';
import { startKafka, startMongo, type RunningServer } from './servers.js';

export type Provisioned = 'kafka' | 'mongo' | 'service';

export interface Provisioner {
  readonly url: string;
  /** Stops every server it started. */
  stop(): Promise<void>;
}

interface Options {
  /** Refuse every request, naming the tier: nothing may start. */
  readonly refuseWith?: string;
  /** Addresses given by the environment: answered as they are, nothing started. */
  readonly given: Partial<Record<'kafka' | 'mongo', string>>;
}

export async function startProvisioner(options: Options): Promise<Provisioner> {
  const servers = new Map<Provisioned, Promise<{ url: string; server?: RunningServer }>>();
  const launch = (what: Provisioned): Promise<{ url: string; server?: RunningServer }> => {
    let pending = servers.get(what);
    if (!pending) {
      const given = what === 'service' ? undefined : options.given[what];
      pending = given !== undefined ? Promise.resolve({ url: given })
        : what === 'kafka' ? startKafka().then((server) => ({ url: server.url, server }))
          : what === 'mongo' ? startMongo().then((server) => ({ url: server.url, server }))
            : buildService().then((url) => ({ url }));
      servers.set(what, pending);
      // A failed start is tried again by the next file that asks, not remembered for the run.
      pending.catch(() => servers.delete(what));
      if (given === undefined) {
        pending.then(({ url }) => process.stderr.write(`[test-servers] ${what} ready: ${url}\n`), () => undefined);
      }
    }
    return pending;
  };

  const http: Server = createServer((req, res) => {
    const what = (req.url ?? '').slice(1);
    const answer = (status: number, body: object): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (what !== 'kafka' && what !== 'mongo' && what !== 'service') return answer(404, { error: `no such server: ${what}` });
    if (options.refuseWith !== undefined) return answer(409, { error: `${options.refuseWith}: a test asked for ${what}` });
    launch(what).then(({ url }) => answer(200, { url }), (err: unknown) => answer(500, { error: `${what} did not start: ${String(err)}` }));
  });
  // Requests wait as long as a JVM takes to start; nothing else talks to this server.
  http.requestTimeout = 0;
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  http.unref();
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      http.close();
      const all = await Promise.allSettled([...servers.values()]);
      await Promise.all(all.map(async (r) => { if (r.status === 'fulfilled') await r.value.server?.stop(); }));
    },
  };
}
