// Names of the topics and consumer groups. A prefix lets several deployments (or test runs)
// share one broker without seeing each other's records.
export interface Topology {
  readonly inbound: string;
  readonly sessionEvents: string;
  readonly processorGroup: string;
  readonly projectorGroup: string;
}

export function topology(prefix = ''): Topology {
  return {
    inbound: `${prefix}inbound`,
    sessionEvents: `${prefix}session-events`,
    processorGroup: `${prefix}sessions`,
    projectorGroup: `${prefix}projections`,
  };
}
