// Vitest global setup: a provisioner that starts the real Kafka broker, the Mongo-wire server
// and the service build when a test file first asks for one (./provisioner.ts), unless
// KAFKA_BROKERS / MONGO_URL point at existing ones. Nothing starts here, so the unit tier
// (CONVOPS_TEST_TIER=unit) never starts Java: there the provisioner refuses every ask.
//
// Vitest runs a global setup once for the run and once per project, all in its main process:
// they share one provisioner (held on globalThis, since each may load this module afresh), and
// the last teardown stops it.
import type { TestProject } from 'vitest/node';
import './provided.js';
import { startProvisioner, type Provisioner } from './provisioner.js';

interface Shared { provisioner: Promise<Provisioner>; users: number }
const KEY = Symbol.for('convops.test-provisioner');
const holder = globalThis as { [KEY]?: Shared };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const tier = process.env.CONVOPS_TEST_TIER === 'unit' ? 'unit' : 'all';
  // scripts/run-tests.ts runs two vitests over one provisioner of its own.
  const given = process.env.CONVOPS_TEST_PROVISIONER;
  const shared = holder[KEY] ??= {
    users: 0,
    provisioner: given ? Promise.resolve({ url: given, stop: () => Promise.resolve() }) : startProvisioner({
      refuseWith: tier === 'unit' ? 'the unit tier starts no server (npm run test:unit)' : undefined,
      given: { kafka: process.env.KAFKA_BROKERS || undefined, mongo: process.env.MONGO_URL || undefined },
    }),
  };
  shared.users += 1;
  const provisioner = await shared.provisioner;
  project.provide('provisioner', provisioner.url);
  project.provide('tier', tier);
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    delete holder[KEY];
    await provisioner.stop();
  };
}
