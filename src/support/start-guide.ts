// What a process says once it serves: one line with where it listens, then what to do next.
// Pure, so the wording is tested without starting anything.

export interface StartFacts {
  /** Where this machine reaches the API (http://127.0.0.1:<port>), or null without the API role. */
  readonly url: string | null;
  /** The ops port's URL in a process without the API. */
  readonly opsUrl: string | null;
  readonly host: string;
  readonly roles: readonly string[];
  readonly adminTokenSet: boolean;
  /** No chat has been processed yet: the store holds nothing to look at. */
  readonly storeEmpty: boolean;
  /** Null when the demo may be loaded; otherwise why not (NODE_ENV=production, say). */
  readonly demoRefused: string | null;
}

export interface StartGuide {
  /** The listening line. */
  readonly listening: string;
  /** Further lines: the pages, and the demo when there is nothing to see. */
  readonly next: readonly string[];
  /** The same facts as fields, for a JSON log. */
  readonly fields: Record<string, string | readonly string[]>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

export function startGuide(f: StartFacts): StartGuide {
  const where = LOOPBACK.has(f.host)
    ? 'this machine only (HOST=0.0.0.0 opens it to others: read "Before going live" in docs/operations.md first)'
    : `every address of this machine (HOST=${f.host})`;
  const url = f.url ?? f.opsUrl ?? '';
  const roles = f.roles.join(', ');
  if (f.url === null) {
    return {
      listening: `convops started (${roles}): metrics and probes at ${url}, ${where}`,
      next: [],
      fields: { opsUrl: url, roles: f.roles, host: f.host },
    };
  }
  const pages: Array<[string, string, string]> = [
    ['floor', '/floor', 'the wallboard for the chat floor'],
    ['console', '/console', "the manager's console"],
    ['API docs', '/docs', 'every route, tried from the browser'],
    ['go-live', '/go-live', 'connecting the platform, step by step'],
  ];
  const next = pages.map(([name, path, what]) => `  ${name.padEnd(8)} ${`${f.url}${path}`.padEnd(f.url!.length + 9)} ${what}`);
  const fields: Record<string, string | readonly string[]> = {
    url: f.url, roles: f.roles, host: f.host, floor: `${f.url}/floor`, console: `${f.url}/console`, docs: `${f.url}/docs`, goLive: `${f.url}/go-live`,
  };
  if (f.storeEmpty && f.demoRefused === null) {
    const seed = `curl -X POST ${f.url}/api/admin/seed-demo -H "authorization: Bearer <ADMIN_TOKEN>"`;
    next.push(f.adminTokenSet
      ? `Nothing is stored yet. Load the demo (3 accounts, a week of chats): ${seed}`
      : `Nothing is stored yet. To load the demo, start again with ADMIN_TOKEN set (16 characters or more), then: ${seed}`);
    fields.demo = seed;
  }
  return { listening: `convops started: listening at ${f.url}, ${where}`, next, fields };
}
