// Holds the service to its OpenAPI document: every answer a route gives in the suite must be a
// status that route declares (the document's `default` aside, which would take any). Installed
// by the inject() harness on its server; a test whose request got an undeclared status fails,
// naming the route and the status.
import { appendFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

type Doc = { paths?: Record<string, Record<string, { responses?: Record<string, unknown> }>> };

export class ContractCheck {
  private readonly found: string[] = [];
  private declared: Map<string, Set<string>> | null = null;

  constructor(private readonly app: FastifyInstance) {
    app.addHook('onSend', async (request, reply, payload) => {
      const url = request.routeOptions.url;
      if (url) this.check(request.method, url, reply.statusCode);
      return payload;
    });
  }

  private statuses(): Map<string, Set<string>> {
    if (this.declared) return this.declared;
    const doc = this.app.swagger() as Doc;
    const out = new Map<string, Set<string>>();
    for (const [path, methods] of Object.entries(doc.paths ?? {})) {
      for (const [method, op] of Object.entries(methods)) out.set(`${method.toUpperCase()} ${path}`, new Set(Object.keys(op.responses ?? {}).filter((s) => s !== 'default')));
    }
    this.declared = out;
    return out;
  }

  private check(method: string, url: string, status: number): void {
    const path = url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const declared = this.statuses().get(`${method === 'HEAD' ? 'GET' : method} ${path}`);
    // Routes the document leaves out (the pages, the docs UI) have no contract to keep.
    if (!declared || declared.has(String(status))) return;
    const line = `${method} ${path} answered ${status}, which it does not declare (declared: ${[...declared].sort().join(', ')})`;
    if (process.env.CONTRACT_LOG) appendFileSync(process.env.CONTRACT_LOG, `${line}\n`);
    else this.found.push(line);
  }

  /** Throws if any answer so far broke the contract (and forgets them). */
  assertKept(): void {
    if (this.found.length === 0) return;
    const lines = this.found.splice(0);
    throw new Error(`OpenAPI contract broken:\n  ${[...new Set(lines)].join('\n  ')}`);
  }
}
