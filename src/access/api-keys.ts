// Access keys, stored hashed. A key is `cvk_<id>_<secret>`: the id finds the document in one
// `_id` read, the secret is compared with its stored hash in constant time. The secret is
// 256 random bits, so a fast hash (SHA-256) is enough: a slow password hash only helps
// secrets that could be guessed, and would cost every request its time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Collection, DocumentStore } from '../adapters/store/store.js';
import type { KeyRole, Principal } from './access-model.js';

export const API_KEYS_COLLECTION = 'api_keys';
const KEY_PATTERN = /^cvk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
/** lastUsedAt is written at most this often per key, so reads do not all become writes. */
const LAST_USED_EVERY_MS = 60_000;

export interface ApiKeyDoc {
  readonly _id: string;
  readonly name: string;
  readonly role: KeyRole;
  /** The accounts the key sees; null: all. */
  readonly accounts: readonly string[] | null;
  /** Hex SHA-256 of the whole key string. */
  readonly hash: string;
  readonly createdAt: number;
  readonly createdBy: string;
  readonly expiresAt: number | null;
  readonly revokedAt: number | null;
  readonly lastUsedAt: number | null;
  [field: string]: unknown;
}

export interface NewKey {
  readonly name: string;
  readonly role: KeyRole;
  readonly accounts: readonly string[] | null;
  readonly expiresAt: number | null;
  readonly createdBy: string;
}

/** Why a presented key was not accepted; said to the caller only as "unknown, revoked or expired". */
export type KeyRefusal = 'malformed' | 'unknown' | 'revoked' | 'expired';

const sha256 = (s: string): Buffer => createHash('sha256').update(s).digest();

export const looksLikeApiKey = (token: string): boolean => token.startsWith('cvk_');

export class ApiKeys {
  private readonly keys: Collection<ApiKeyDoc>;
  private readonly lastUsedWritten = new Map<string, number>();

  constructor(store: DocumentStore, private readonly clock: () => number = Date.now) {
    this.keys = store.collection<ApiKeyDoc>(API_KEYS_COLLECTION);
  }

  async create(input: NewKey): Promise<{ doc: ApiKeyDoc; secret: string }> {
    const id = randomBytes(8).toString('hex');
    const secret = `cvk_${id}_${randomBytes(32).toString('base64url')}`;
    const doc: ApiKeyDoc = {
      _id: id, name: input.name, role: input.role, accounts: input.accounts, hash: sha256(secret).toString('hex'),
      createdAt: this.clock(), createdBy: input.createdBy, expiresAt: input.expiresAt, revokedAt: null, lastUsedAt: null,
    };
    await this.keys.insertOne(doc);
    return { doc, secret };
  }

  list(includeRevoked: boolean): Promise<ApiKeyDoc[]> {
    return this.keys.find(includeRevoked ? {} : { revokedAt: null }, { sort: { createdAt: -1, _id: 1 }, limit: 10_000 });
  }

  /** Revokes a key (idempotent); null when there is no such key. */
  async revoke(id: string): Promise<ApiKeyDoc | null> {
    await this.keys.updateOne({ _id: id, revokedAt: null }, { $set: { revokedAt: this.clock() } });
    return this.keys.findOne({ _id: id });
  }

  async verify(token: string): Promise<{ ok: true; principal: Principal } | { ok: false; reason: KeyRefusal }> {
    const m = KEY_PATTERN.exec(token);
    if (!m?.[1]) return { ok: false, reason: 'malformed' };
    const doc = await this.keys.findOne({ _id: m[1] });
    // A missing key is compared against a dummy hash too, so timing does not tell ids apart.
    const expected = doc ? Buffer.from(doc.hash, 'hex') : sha256('no such key');
    const matches = timingSafeEqual(sha256(token), expected) && doc !== null;
    if (!matches || !doc) return { ok: false, reason: 'unknown' };
    const now = this.clock();
    if (doc.revokedAt !== null) return { ok: false, reason: 'revoked' };
    if (doc.expiresAt !== null && doc.expiresAt <= now) return { ok: false, reason: 'expired' };
    this.touch(doc._id, now);
    return { ok: true, principal: { kind: 'key', id: doc._id, name: doc.name, role: doc.role, accounts: doc.accounts } };
  }

  private touch(id: string, now: number): void {
    if (now - (this.lastUsedWritten.get(id) ?? 0) < LAST_USED_EVERY_MS) return;
    this.lastUsedWritten.set(id, now);
    if (this.lastUsedWritten.size > 10_000) this.lastUsedWritten.clear();
    // Bookkeeping only: a failed write must not fail the request it rides on.
    this.keys.updateOne({ _id: id }, { $set: { lastUsedAt: now } }).catch(() => undefined);
  }
}
