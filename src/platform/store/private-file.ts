import { closeSync, openSync } from 'node:fs';

/**
 * Creates `path` empty with mode 0600 when it does not exist yet, so that SQLite, which opens
 * it next, writes the database (and the WAL and shared-memory files, which SQLite creates with
 * the database file's mode) readable by the service's user only. A database and its backups
 * hold every account; the umask (0644 by default) would make them readable by every local user.
 */
export function createPrivateFile(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
