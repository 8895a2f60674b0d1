// Moved to pipeline/freshness.ts (the processor measures it too, and must not import the
// projector). Kept until every importer has moved; nothing in src/ should import this.
export { Freshness, type FreshnessSummary } from '../pipeline/freshness.js';
