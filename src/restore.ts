import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { allMigrations } from './modules/index.js';
import { loadConfig } from './platform/config.js';
import { migrateToLatest } from './platform/store/migrate.js';
import { restoreSqlite } from './platform/store/sqlite-backup.js';
import { claimSqlite, SqliteInUse } from './platform/store/sqlite-owner.js';
import { openDatabase } from './platform/store/store.js';

/**
 * `npm run restore -- FILE`: replaces the SQLite database with a backup, then brings it to the
 * current migrations. Refused while the service (or another restore) has the database open
 * (decision 100); the replaced database is kept beside it.
 */
if (process.argv.length !== 3) {
  console.error('usage: npm run restore -- FILE   (stop the service first)');
  process.exit(2);
}
const source = resolve(process.argv[2]!);
const config = loadConfig();
if (config.database.kind !== 'sqlite' || config.database.path === ':memory:') {
  console.error('npm run restore restores a SQLite backup; for PostgreSQL use pg_restore or point-in-time recovery (docs/operations.md, "Backup and restore")');
  process.exit(2);
}
if (!existsSync(source)) {
  console.error(`there is no backup at ${source}`);
  process.exit(1);
}
const target = config.database.path;
let ownership;
try {
  ownership = claimSqlite(target, 'a restore');
} catch (error) {
  if (!(error instanceof SqliteInUse)) throw error;
  console.error(`refusing to restore: ${error.message}`);
  process.exit(1);
}
try {
  const { keptAs } = await restoreSqlite(source, target, new Date());
  const handle = openDatabase(config);
  try {
    const applied = await migrateToLatest(handle.db, handle.schema, allMigrations());
    console.log(`restored ${source} to ${target}${applied.length ? `; applied ${applied.join(', ')}` : ''}`);
  } finally {
    await handle.db.destroy();
  }
  if (keptAs) console.log(`the database it replaced is kept as ${keptAs}`);
} catch (error) {
  console.error(`restore failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  ownership.release();
}
