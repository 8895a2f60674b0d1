// A typed convops client in a few lines: types generated from docs/openapi.json
// (examples/convops-api.d.ts, by scripts/openapi.ts) drive openapi-fetch, so a misspelt route,
// parameter or field is a type error, not a 400 at run time. It lists the priority inbox,
// reads the SLA report and, when asked (CONVOPS_CLOSE=1), force-closes the longest-waiting session.
//   CONVOPS_URL=http://localhost:3000 CONVOPS_TOKEN=cvk_… node --import tsx examples/inbox-client.ts
// The test suite runs it against the service (test/http/example-client.test.ts).
import createClient, { type Client } from 'openapi-fetch';
import { pathToFileURL } from 'node:url';
import type { paths } from './convops-api.js';

export type ConvopsClient = Client<paths>;

/** Without a token no credential is sent (reads are open by default); an empty one would be refused. */
export function convopsClient(baseUrl: string, token: string | undefined, fetch?: (request: Request) => Promise<Response>): ConvopsClient {
  return createClient<paths>({ baseUrl, ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}), ...(fetch ? { fetch } : {}) });
}

export interface Triage {
  readonly waiting: { readonly sessionId: string; readonly accountId: string; readonly waitSec: number }[];
  readonly slaWithinPct: number | null;
  readonly closed: { readonly sessionId: string; readonly status: string } | null;
}

/** The inbox's waiting fans, the SLA report's headline, and (with `close`) a forced close of the first in line. */
export async function triage(client: ConvopsClient, { thresholdSec = 300, close = false }: { thresholdSec?: number; close?: boolean } = {}): Promise<Triage> {
  const inbox = await client.GET('/api/sessions', { params: { query: { awaiting: '1', limit: 10, thresholdSec } } });
  if (inbox.error) throw new Error(`inbox: ${inbox.error.code}: ${inbox.error.message}`);
  const waiting = inbox.data.items.map((s) => ({ sessionId: s.id, accountId: s.accountId, waitSec: s.waitSec }));

  const sla = await client.GET('/api/sla', { params: { query: { thresholdSec } } });
  if (sla.error) throw new Error(`sla: ${sla.error.code}: ${sla.error.message}`);

  const first = waiting[0];
  let closed: Triage['closed'] = null;
  if (first && close) {
    const closing = await client.POST('/api/admin/close-session', { body: { sessionId: first.sessionId } });
    if (closing.error) throw new Error(`close: ${closing.error.code}: ${closing.error.message}`);
    closed = { sessionId: closing.data.sessionId, status: closing.data.status };
  }
  return { waiting, slaWithinPct: sla.data.withinThresholdPct, closed };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const client = convopsClient(process.env.CONVOPS_URL ?? 'http://localhost:3000', process.env.CONVOPS_TOKEN);
  const result = await triage(client, { close: process.env.CONVOPS_CLOSE === '1' });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
