// One opened LMDB environment per folder and process, however many embedded stores or logs are
// open on it. lmdb-js opens a path a second time as the same LMDB environment (so the same
// writer lock) but with a write thread of its own, and the two know nothing of each other. One's
// write thread holds the lock while it waits for this (the main) thread to run a transaction
// callback; a synchronous write transaction of the other on this thread (opening a database,
// which lmdb-js does in one, or `transactionSync`) waits for the lock, and neither ever moves
// again. Through one opened root lmdb-js hands its write thread's transaction to the synchronous
// one, as it is built to.
import { realpathSync } from 'node:fs';
import { open, type RootDatabase, type RootDatabaseOptions } from 'lmdb';

/** A user's hold on a folder's opened environment. */
export interface SharedRoot<T> {
  readonly root: RootDatabase;
  /** What the first user set up on the environment (its databases, shared state), shared by all. */
  readonly opened: T;
  /** Lets go once this user's writes are flushed; the last to let go closes the environment. */
  release(): Promise<void>;
}

interface Opened {
  readonly path: string;
  readonly root: RootDatabase;
  readonly opened: unknown;
  /** The users holding it; the last to let go closes it. */
  users: number;
  closing: Promise<void> | null;
}

const roots = new Map<string, Opened>();

/**
 * The environment of the existing folder `path`, opened with `options` and set up by `setUp` if
 * this process has it open nowhere else; else the one already open (its options and set-up).
 */
export function openSharedRoot<T>(path: string, options: RootDatabaseOptions, setUp: (root: RootDatabase) => T): SharedRoot<T> {
  // The folder's real path: two spellings of one folder are one environment.
  const real = realpathSync(path);
  let entry = roots.get(real);
  if (!entry) {
    const root = open({ ...options, path: real });
    let opened: T;
    try {
      opened = setUp(root);
    } catch (err) {
      void root.close();
      throw err;
    }
    entry = { path: real, root, opened, users: 0, closing: null };
    roots.set(real, entry);
  }
  const shared = entry;
  shared.users++;
  let released = false;
  return {
    root: shared.root,
    opened: shared.opened as T,
    release: async () => {
      if (released) return;
      released = true;
      shared.users--;
      await shared.root.flushed;
      // Another user opened on the folder meanwhile keeps it open.
      if (shared.users > 0) return;
      shared.closing ??= (async () => {
        if (roots.get(shared.path) === shared) roots.delete(shared.path);
        await shared.root.close();
      })();
      await shared.closing;
    },
  };
}
