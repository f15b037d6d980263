import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type SQLite from 'better-sqlite3';

const ignore = () => {};

/**
 * Syncs that share their work: at most one runs at a time, and every request made while it runs
 * shares the next one, which starts when it ends. A sync covers every write made before it
 * started, so a request is satisfied by the first sync that starts after it (the group commit of
 * fsyncs, as sqlite-group-commit.ts is the group commit of transactions).
 */
export class SharedSync {
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;

  constructor(private readonly syncOnce: () => Promise<void>) {}

  request(): Promise<void> {
    if (!this.running) {
      this.running = this.syncOnce().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    this.next ??= this.running.then(ignore, ignore).then(() => {
      this.next = undefined;
      return this.request();
    });
    return this.next;
  }

  /** Settles once no sync runs or waits (their outcome is their requesters'). */
  async drain(): Promise<void> {
    while (this.running || this.next) await (this.next ?? this.running)!.then(ignore, ignore);
  }
}

/** fdatasync(2) of one file through a handle opened on first use, on libuv's thread pool. */
function fileSync(path: string): { sync(): Promise<void>; close(): Promise<void> } {
  let handle: Promise<FileHandle> | undefined;
  return {
    async sync() {
      handle ??= open(path, 'r+');
      try {
        await (await handle).datasync();
      } catch (error) {
        handle = undefined;
        throw error;
      }
    },
    async close() {
      const opened = handle;
      handle = undefined;
      if (opened) await (await opened).close().catch(ignore);
    },
  };
}

/** How the group committer makes a commit durable when SQLite's COMMIT does not (decision 005). */
export interface WalDurability {
  /** Resolves once everything committed before the call is on disk. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Puts an opened SQLite file in WAL mode and decides who syncs it (decision 005).
 *
 * With `synchronous=FULL` SQLite fsyncs the WAL inside every COMMIT, on the thread that called
 * it: better-sqlite3 is synchronous, so each fsync stalls the event loop (a fifth of a passkey
 * login's time in a profile). In WAL mode, `synchronous=NORMAL` writes the commit's frames to
 * the WAL without syncing it (sqlite.org/pragma.html#pragma_synchronous), so that is done here
 * instead: one fdatasync of the WAL file on libuv's thread pool, and nothing is acknowledged
 * until it completes. What a power loss can take back is then exactly what FULL allows: nothing
 * acknowledged. SQLite still syncs the WAL before a checkpoint, the database after it, and the
 * WAL header when it starts reusing the file, as with FULL.
 *
 * Returns undefined where the file is not in WAL mode (an in-memory database, or a file system
 * that refuses WAL): SQLite's FULL then does the syncing, as before.
 */
export function walDurability(sqlite: SQLite.Database): WalDurability | undefined {
  const mode = sqlite.pragma('journal_mode = WAL', { simple: true });
  if (mode !== 'wal') {
    sqlite.pragma('synchronous = FULL');
    return undefined;
  }
  sqlite.pragma('synchronous = NORMAL');
  const file = fileSync(`${sqlite.name}-wal`);
  const shared = new SharedSync(file.sync);
  return {
    sync: () => shared.request(),
    async close() {
      await shared.drain();
      await file.close();
    },
  };
}
