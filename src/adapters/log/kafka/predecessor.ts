// A worker killed (kill -9, a crashed container) never leaves its consumer groups, and the
// coordinator waits out its session (KAFKA_SESSION_TIMEOUT_MS, 30 s by default) before a
// rebalance can finish without it: a worker restarted at once sat idle that long. Kafka's own
// answer, static membership (group.instance.id), is not in kafkajs. What the broker does allow
// is a LeaveGroup on behalf of a member: a worker given a name of its own that outlives restarts
// (KAFKA_MEMBER_NAME: a StatefulSet's pod name, a compose service's) joins under the client id
// `convops-<name>`, and before it joins a group it asks the coordinator to remove any member
// with that client id: its previous run's. Without a name nothing is removed (two workers on
// one host could not be told apart).
import type { Kafka } from 'kafkajs';
import type { Logger } from '../../../support/logger.js';

interface Coordinator {
  leaveGroup(request: { groupId: string; memberId: string }): Promise<unknown>;
}
interface InternalCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  findGroupCoordinator(request: { groupId: string }): Promise<Coordinator>;
}

/**
 * kafkajs builds its clusters with a function it keeps under a private symbol; the consumer's
 * and the admin's clusters are not reachable, so one more is built with the client's settings
 * (brokers, TLS, SASL) to send the request. Null when this kafkajs keeps it elsewhere.
 */
function clusterOf(kafka: Kafka): InternalCluster | null {
  const key = Object.getOwnPropertySymbols(kafka).find((s) => s.description === 'private:Kafka:createCluster');
  const create = key === undefined ? undefined : (kafka as unknown as Record<symbol, unknown>)[key];
  return typeof create === 'function' ? (create as (o: object) => InternalCluster)({ allowAutoTopicCreation: false }) : null;
}

/** Removes the members of `groupId` that joined with `clientId` (this worker's earlier runs); answers how many. */
export async function leavePredecessors(kafka: Kafka, groupId: string, clientId: string, logger?: Logger): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  let members: string[];
  try {
    const { groups } = await admin.describeGroups([groupId]);
    members = (groups[0]?.members ?? []).filter((m) => m.clientId === clientId).map((m) => m.memberId);
  } finally {
    await admin.disconnect();
  }
  if (members.length === 0) return 0;
  const cluster = clusterOf(kafka);
  if (!cluster) {
    logger?.warn({ groupId, members }, 'this kafkajs does not let a worker remove its previous run from the group; waiting out its session');
    return 0;
  }
  await cluster.connect();
  try {
    const coordinator = await cluster.findGroupCoordinator({ groupId });
    for (const memberId of members) await coordinator.leaveGroup({ groupId, memberId });
  } finally {
    await cluster.disconnect();
  }
  logger?.info({ groupId, members }, 'removed this worker\'s previous run from the group (it had not left): no wait for its session to time out');
  return members.length;
}
