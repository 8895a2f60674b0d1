// Names of the topics and consumer groups. A prefix lets several deployments (or test runs)
// share one broker without seeing each other's records.
export interface Topology {
  readonly inbound: string;
  readonly sessionEvents: string;
  readonly processorGroup: string;
  readonly projectorGroup: string;
}

/**
 * `inbound` may be named outright: re-deriving everything from an existing inbound log into
 * fresh session-events, groups and read models uses a new prefix with the old inbound.
 */
export function topology(prefix = '', inbound?: string): Topology {
  return {
    inbound: inbound ?? `${prefix}inbound`,
    sessionEvents: `${prefix}session-events`,
    processorGroup: `${prefix}sessions`,
    projectorGroup: `${prefix}projections`,
  };
}
