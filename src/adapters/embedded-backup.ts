// A consistent copy of the embedded DATA_DIR while the service runs. Each LMDB environment is
// copied from one read transaction (LMDB's own copy), and the environments in the order that
// makes their union a state a crash could have left: the consumer positions first, then the
// store, then the topics' records. So a restored copy never holds a position past what its store
// applied nor a store past what its log holds; it only redelivers (counted once, as after a
// crash) and resumes the records that came after.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { RootDatabase } from 'lmdb';
import { openLogRoot, openTopicRoot } from './log/embedded-log.js';
import { openStoreRoot } from './store/embedded-store.js';
import type { SharedRoot } from './lmdb-roots.js';

export const BACKUP_MANIFEST = 'convops-backup.json';

export interface BackupFile {
  /** Relative to the backup's folder, as under DATA_DIR. */
  readonly path: string;
  readonly bytes: number;
}

export interface BackupResult {
  /** The backup's folder: what to copy to a DATA_DIR to restore it. */
  readonly path: string;
  readonly name: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly bytes: number;
  readonly files: readonly BackupFile[];
}

/** The folders to copy, in the order above, with how this process opens each. */
function environments(dataDir: string): Array<{ readonly folder: string; readonly open: (path: string) => SharedRoot<unknown> }> {
  const topics = join(dataDir, 'log', 'topics');
  const topicFolders = existsSync(topics) ? readdirSync(topics).filter((f) => existsSync(join(topics, f, 'data.mdb'))).sort() : [];
  return [
    { folder: join(dataDir, 'log'), open: openLogRoot },
    { folder: join(dataDir, 'store'), open: openStoreRoot },
    ...topicFolders.map((f) => ({ folder: join(topics, f), open: openTopicRoot })),
  ].filter((e) => existsSync(join(e.folder, 'data.mdb')));
}

/** A name that sorts by time and says what it is. */
export function backupName(at: Date): string {
  return `convops-backup-${at.toISOString().replace(/[-:]/g, '').replace('.', '')}`;
}

/**
 * Copies DATA_DIR's environments into `<backupsDir>/<name>`, through a `.partial` folder renamed
 * only once every copy and the manifest are written: a folder with the final name is whole.
 */
export async function backupEmbedded(dataDir: string, backupsDir: string, now: () => Date = () => new Date()): Promise<BackupResult> {
  const started = now();
  const name = backupName(started);
  const final = join(backupsDir, name);
  const partial = join(backupsDir, `.${name}.partial`);
  if (existsSync(final)) throw new Error(`${final} exists already`);
  mkdirSync(backupsDir, { recursive: true });
  rmSync(partial, { recursive: true, force: true });
  const files: BackupFile[] = [];
  try {
    for (const env of environments(dataDir)) {
      const target = join(partial, relative(dataDir, env.folder));
      const held = env.open(env.folder);
      try {
        await copyEnvironment(held.root, target);
      } finally {
        await held.release();
      }
      const rel = relative(partial, join(target, 'data.mdb'));
      files.push({ path: rel, bytes: statSync(join(target, 'data.mdb')).size });
    }
    const finishedAt = now().toISOString();
    const bytes = files.reduce((n, f) => n + f.bytes, 0);
    writeFileSync(join(partial, BACKUP_MANIFEST), `${JSON.stringify({ kind: 'convops embedded backup', name, startedAt: started.toISOString(), finishedAt, bytes, files }, null, 2)}\n`);
    // On disk before the final name is: a folder with that name is whole, even after a power loss.
    for (const f of files) flush(join(partial, f.path));
    flush(join(partial, BACKUP_MANIFEST));
    flush(partial);
    renameSync(partial, final);
    flush(backupsDir);
    return { path: final, name, startedAt: started.toISOString(), finishedAt, bytes, files };
  } catch (err) {
    rmSync(partial, { recursive: true, force: true });
    throw err;
  }
}

function flush(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

async function copyEnvironment(root: RootDatabase, target: string): Promise<void> {
  // LMDB writes data.mdb into an existing, empty folder.
  mkdirSync(target, { recursive: true });
  await root.backup(target, false);
}
