import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { createPrivateFile } from './private-file.js';

/**
 * Online backup and restore of the SQLite database (decision 100), with SQLite's backup API
 * (sqlite.org/backup.html) through better-sqlite3: a consistent copy of a database the service
 * keeps writing. The copy is written under a temporary name, made durable, checked, and only
 * then renamed into place, so a failed or interrupted backup never leaves a file that looks good.
 */

/** Pages per step after the first: the rest in one step, so writes by the service cannot restart it forever. */
const ALL_REMAINING = 1 << 30;

export interface BackupReport {
  pages: number;
  bytes: number;
  migrations: number;
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** PRAGMA integrity_check and the migrations recorded in the file; throws when either is wrong. */
export function checkDatabaseFile(path: string): { migrations: string[] } {
  const db = new SQLite(path, { readonly: true, fileMustExist: true });
  try {
    const verdict = db.pragma('integrity_check', { simple: true });
    if (verdict !== 'ok') throw new Error(`${path} fails SQLite's integrity check: ${String(verdict)}`);
    const table = db.prepare("select name from sqlite_master where type = 'table' and name = 'kysely_migration'").get();
    if (!table) throw new Error(`${path} is not a VID database (it records no migrations)`);
    const rows = db.prepare('select name from kysely_migration order by name').all() as Array<{ name: string }>;
    return { migrations: rows.map((row) => row.name) };
  } finally {
    db.close();
  }
}

/**
 * Copies the live database at `source` to `target`. Every write acknowledged before the copy
 * starts is in it: an acknowledged write is committed to the WAL, which the backup reads.
 */
export async function backupSqlite(source: string, target: string): Promise<BackupReport> {
  const partial = `${target}.partial-${process.pid}`;
  const db = new SQLite(source, { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  try {
    createPrivateFile(partial);
    const { totalPages } = await db.backup(partial, { progress: () => ALL_REMAINING });
    // The copy carries the live file's WAL mode; a backup is one self-contained file instead.
    const copy = new SQLite(partial);
    copy.pragma('journal_mode = DELETE');
    copy.close();
    fsyncPath(partial);
    const { migrations } = checkDatabaseFile(partial);
    renameSync(partial, target);
    // The rename itself must survive a crash: fsync the directory that holds it.
    fsyncPath(dirname(target));
    return { pages: totalPages, bytes: statSync(target).size, migrations: migrations.length };
  } catch (error) {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(partial + suffix, { force: true });
    throw error;
  } finally {
    db.close();
  }
}

/**
 * Replaces the database at `target` with the backup `source` (the service must be stopped: the
 * caller holds the file, sqlite-owner.ts). The database it replaces is kept beside it as
 * `<target>.before-restore-<time>`, with its WAL folded in, so a wrong restore can be undone.
 */
export async function restoreSqlite(source: string, target: string, now: Date): Promise<{ keptAs?: string }> {
  checkDatabaseFile(source);
  let keptAs: string | undefined;
  if (existsSync(target)) {
    keptAs = `${target}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`;
    createPrivateFile(keptAs);
    // The backup API again: the kept copy includes what was only in the WAL.
    const current = new SQLite(target, { fileMustExist: true });
    try {
      await current.backup(keptAs);
    } finally {
      current.close();
    }
    fsyncPath(keptAs);
  }
  // The backup API into the live path: SQLite replaces the pages in one write transaction,
  // WAL included, so a crash midway leaves the old database, never half of each.
  const backup = new SQLite(source, { readonly: true, fileMustExist: true });
  try {
    createPrivateFile(target);
    await backup.backup(target);
  } finally {
    backup.close();
  }
  return { keptAs };
}
