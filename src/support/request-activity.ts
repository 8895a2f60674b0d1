// When this process last began answering an HTTP request (the API's or the probes' port). A
// replay folds in large slices while nobody asks, which is a quarter faster, and in small ones
// while someone does, so a probe or a dashboard waits at most one small slice's stretch
// (docs/benchmarks.md, issue 56). Process-wide on purpose: the servers and the projector share
// the one event loop this describes.
let lastAt = Number.NEGATIVE_INFINITY;

export const requestActivity = {
  touch(now = performance.now()): void {
    lastAt = now;
  },
  /** Milliseconds since a request began here (Infinity: none yet). */
  quietFor(now = performance.now()): number {
    return now - lastAt;
  },
};
