// Waits until the pipeline has settled after seeding: the session count stops moving.
import { deadline } from './deadline.js';

export async function settledSessions(url: string): Promise<number> {
  let last = -1;
  for (;;) {
    await new Promise((r) => setTimeout(r, 1000));
    const n = ((await (await fetch(`${url}/api/overview`, { signal: deadline() })).json()) as { sessions: { total: number } }).sessions.total;
    if (n === last && n > 0) return n;
    last = n;
  }
}
