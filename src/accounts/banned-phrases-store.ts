// Each account's banned phrases (domain/banned-phrases.ts), one document per account holding
// its lists as they changed: a reply is judged by the list in force when convops received it,
// so processing the same records again judges them the same, and a change applies from the
// moment it is saved (never to replies received before it). The processor reads the lists
// through a PhraseBook, refreshed before each round.
import type { Collection, Doc, DocumentStore } from '../adapters/store/store.js';
import { RefreshedCopy } from '../support/refreshed-copy.js';

export const BANNED_PHRASES_COLLECTION = 'banned_phrases';
/** The versions kept per account: the latest this many (older replies keep the flags they got). */
const KEPT_VERSIONS = 50;

export interface PhraseVersion {
  /** In force for replies received at or after this time (epoch ms). */
  readonly from: number;
  readonly phrases: readonly string[];
  /** Who saved it (the key's name). */
  readonly by: string;
}

export interface BannedPhrasesDoc extends Doc {
  /** Oldest first. */
  readonly versions: readonly PhraseVersion[];
}

/** The list in force at `at`: the latest version from at or before it; none before the first. */
export function phrasesAt(doc: BannedPhrasesDoc | undefined, at: number): readonly string[] {
  const versions = doc?.versions ?? [];
  for (let i = versions.length - 1; i >= 0; i--) {
    const v = versions[i] as PhraseVersion;
    if (v.from <= at) return v.phrases;
  }
  return [];
}

/** Bumped by every change this process makes, so its own processor sees the change in its next round. */
let generation = 0;

export class BannedPhrasesStore {
  readonly lists: Collection<BannedPhrasesDoc>;

  constructor(store: DocumentStore) {
    this.lists = store.collection<BannedPhrasesDoc>(BANNED_PHRASES_COLLECTION);
  }

  get(accountId: string): Promise<BannedPhrasesDoc | null> {
    return this.lists.findOne({ _id: accountId });
  }

  all(): Promise<BannedPhrasesDoc[]> {
    return this.lists.find({});
  }

  /** A new version in force from `now`; a clock that went back never puts it before the last. */
  async set(accountId: string, phrases: readonly string[], by: string, now = Date.now()): Promise<BannedPhrasesDoc> {
    const had = await this.get(accountId);
    const last = had?.versions[had.versions.length - 1];
    const from = last === undefined ? now : Math.max(now, last.from + 1);
    const doc: BannedPhrasesDoc = { _id: accountId, versions: [...(had?.versions ?? []), { from, phrases, by }].slice(-KEPT_VERSIONS) };
    await this.lists.replaceOne({ _id: accountId }, doc, { upsert: true });
    generation++;
    return doc;
  }
}

/** How long a processor trusts its copy of the lists when this process changed none: a change saved elsewhere applies within it. */
const STALE_MS = 5_000;

/**
 * The processor's copy of every account's lists: refreshed before a round when this process
 * saved a change or the copy is older than STALE_MS, then read synchronously while the round
 * decides. A reply received in the moments between a save in another process and the refresh
 * is judged by the list before it.
 */
export class PhraseBook {
  private readonly copy: RefreshedCopy<ReadonlyMap<string, BannedPhrasesDoc>>;

  constructor(store: BannedPhrasesStore) {
    this.copy = new RefreshedCopy(async () => new Map((await store.all()).map((d) => [d._id, d])), () => generation, STALE_MS, new Map());
  }

  refresh(now = Date.now()): Promise<void> {
    return this.copy.refresh(now);
  }

  readonly phrasesAt = (accountId: string, at: number): readonly string[] => phrasesAt(this.copy.value.get(accountId), at);
}
