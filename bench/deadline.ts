// Every request a benchmark makes has a deadline (issue 56): a service that stops answering
// ends the bench with an error or a failed sample instead of a wait that never ends.
import type { ClientRequest } from 'node:http';

export const REQUEST_DEADLINE_MS = 30_000;

/** A fetch signal that aborts after the deadline. */
export const deadline = (ms = REQUEST_DEADLINE_MS): AbortSignal => AbortSignal.timeout(ms);

/** Destroys the request (its 'error' handler then runs) when no answer came within the deadline. */
export function withDeadline(req: ClientRequest, ms = REQUEST_DEADLINE_MS): ClientRequest {
  req.setTimeout(ms, () => req.destroy(new Error(`no answer within ${ms} ms`)));
  return req;
}
