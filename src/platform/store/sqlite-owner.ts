import { hostname } from 'node:os';
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Who has a SQLite database file open for writing as a long-lived owner: the service, or a
 * restore replacing the file (decision 100). SQLite itself cannot tell a second process that a
 * database is in use (a WAL connection holds no lock while idle), so the owner leaves a small
 * file beside the database (`<database>.owner`: pid, host, role) and removes it on exit. A
 * file whose process is gone (a crash) is stale and taken over; one held by a live process,
 * or by another host (whose processes cannot be checked from here), is refused.
 */
export interface SqliteOwnership {
  release(): void;
}

interface OwnerRecord {
  pid: number;
  host: string;
  role: string;
  since: string;
}

export class SqliteInUse extends Error {
  constructor(readonly path: string, readonly owner: OwnerRecord) {
    super(`${path} is in use by ${owner.role} (pid ${owner.pid} on ${owner.host}, since ${owner.since}); stop it first${owner.host === hostname() ? '' : ', or if it is gone, delete ' + ownerFile(path)}`);
    this.name = 'SqliteInUse';
  }
}

export const ownerFile = (databasePath: string) => `${databasePath}.owner`;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The live owner of the file, if any (a stale record is ignored). */
export function currentOwner(databasePath: string): OwnerRecord | undefined {
  let record: OwnerRecord;
  try {
    record = JSON.parse(readFileSync(ownerFile(databasePath), 'utf8')) as OwnerRecord;
  } catch {
    return undefined;
  }
  if (record.host !== hostname()) return record;
  return record.pid !== process.pid && isAlive(record.pid) ? record : undefined;
}

/** Claims the database for this process, or throws SqliteInUse. Released on exit. */
export function claimSqlite(databasePath: string, role: string): SqliteOwnership {
  const path = ownerFile(databasePath);
  mkdirSync(dirname(path), { recursive: true });
  const record: OwnerRecord = { pid: process.pid, host: hostname(), role, since: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(path, JSON.stringify(record), { flag: 'wx', mode: 0o600 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      const owner = currentOwner(databasePath);
      if (owner) throw new SqliteInUse(databasePath, owner);
      unlinkSync(path);
    }
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    try {
      unlinkSync(path);
    } catch {
      // Gone already: nothing to release.
    }
  };
  process.on('exit', release);
  return { release };
}
