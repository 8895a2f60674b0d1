// Where a hook may point. A hook is a request convops makes on an admin's say-so to any URL,
// so without a guard it is a way into the agency's own network (the metadata service at
// 169.254.169.254, a database on localhost). Private, loopback, link-local and other
// non-public addresses are refused unless ALERT_HOOK_ALLOW_PRIVATE=true. The check is made on
// the addresses the host resolves to at send time, and the connection goes to the address that
// was checked, so a name that resolved to a public address when the hook was registered (or a
// moment ago) cannot be pointed inside afterwards.
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

export const MAX_HOOK_URL_LENGTH = 2048;

/** The ranges ipaddr.js names that are public; every other one (private, loopback, linkLocal, uniqueLocal, carrierGradeNat, reserved…) is refused. */
const PUBLIC_RANGES = new Set(['unicast', 'global']);

export class DestinationRefused extends Error {
  override name = 'DestinationRefused';
}

/** Why `address` may not be called, or null when it may. */
export function refusedAddress(address: string): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    const embedded = embeddedIPv4(v6);
    // An IPv6 address that carries an IPv4 one (::ffff:10.0.0.1, NAT64's 64:ff9b::/96 under
    // DNS64, 6to4) reaches that IPv4 host: judged as it.
    if (embedded) parsed = embedded;
    // The deprecated IPv4-compatible form (::a.b.c.d) reaches nothing public.
    else if (v6.parts.slice(0, 6).every((p) => p === 0) && v6.range() === 'unicast') return `${address} is an IPv4-compatible (deprecated) address`;
  }
  const range = parsed.range();
  return PUBLIC_RANGES.has(range) ? null : `${parsed.toString()} is a ${range} address`;
}

function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = v6.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  if (v6.range() === 'rfc6052' && p[0] === 0x64 && p[1] === 0xff9b && p.slice(2, 6).every((x) => x === 0)) return v4(p[6] ?? 0, p[7] ?? 0);
  if (v6.range() === '6to4') return v4(p[1] ?? 0, p[2] ?? 0);
  return null;
}

/** The URL of a hook as registered: a 400-worthy reason, or null when it is acceptable. */
export function urlProblem(raw: string, allowPrivate: boolean): string | null {
  if (raw.length > MAX_HOOK_URL_LENGTH) return `longer than ${MAX_HOOK_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `${url.protocol} is not http: or https:`;
  // Credentials in the URL would be shown in every hook list.
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password (put a token in the path or query)';
  if (url.hash !== '') return 'must not have a #fragment';
  // A name's trailing dots (LOCALHOST., foo.localhost..) name the same host to a resolver.
  let host = url.hostname.replace(/^\[|\]$/g, '');
  while (host.endsWith('.')) host = host.slice(0, -1);
  if (!allowPrivate && ipaddr.isValid(host)) {
    const why = refusedAddress(host);
    if (why) return `${why}: private, loopback and link-local destinations are refused (ALERT_HOOK_ALLOW_PRIVATE)`;
  }
  if (!allowPrivate && (host === 'localhost' || host.endsWith('.localhost'))) return 'localhost is refused (ALERT_HOOK_ALLOW_PRIVATE)';
  return null;
}

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

export type Resolver = (host: string) => Promise<readonly ResolvedAddress[]>;

/**
 * Lookups in flight at once. dns.lookup runs on libuv's thread pool (four threads, shared with
 * file and crypto work) and cannot be cancelled: a name whose servers never answer holds a
 * thread past the attempt's timeout, so hook lookups may take two at most.
 */
const MAX_LOOKUPS = 2;
let lookups = 0;
const waiting: (() => void)[] = [];

export const systemResolver: Resolver = async (host) => {
  if (lookups >= MAX_LOOKUPS) await new Promise<void>((resolve) => waiting.push(resolve));
  lookups++;
  try {
    return (await lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  } finally {
    lookups--;
    waiting.shift()?.();
  }
};

/**
 * The address to connect to for `host`: every address it resolves to must be allowed (a name
 * with one public and one private address is refused: which one a client picks is not ours to
 * rely on).
 */
export async function checkedAddress(host: string, allowPrivate: boolean, resolve: Resolver = systemResolver): Promise<ResolvedAddress> {
  const bare = host.replace(/^\[|\]$/g, '');
  const addresses = ipaddr.isValid(bare) ? [{ address: bare, family: ipaddr.parse(bare).kind() === 'ipv6' ? 6 as const : 4 as const }] : await resolve(bare);
  const first = addresses[0];
  if (!first) throw new DestinationRefused(`${bare} resolves to no address`);
  if (!allowPrivate) {
    for (const a of addresses) {
      const why = refusedAddress(a.address);
      if (why) throw new DestinationRefused(`${bare} resolves to ${why}: refused (ALERT_HOOK_ALLOW_PRIVATE=true allows it)`);
    }
  }
  return first;
}
