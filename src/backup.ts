import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from './platform/config.js';
import { backupSqlite } from './platform/store/sqlite-backup.js';

/**
 * `npm run backup -- FILE [--force]`: a consistent copy of the live SQLite database while the
 * service keeps serving (docs/operations.md, "Backup and restore"). PostgreSQL has its own
 * tools (pg_dump, point-in-time recovery); the sealing key is backed up separately.
 */
const { positionals, values } = parseArgs({ args: process.argv.slice(2), allowPositionals: true, options: { force: { type: 'boolean', default: false } } });
if (positionals.length !== 1) {
  console.error('usage: npm run backup -- FILE [--force]');
  process.exit(2);
}
const target = resolve(positionals[0]!);
const config = loadConfig();
if (config.database.kind !== 'sqlite' || config.database.path === ':memory:') {
  console.error('npm run backup copies the SQLite database; for PostgreSQL use pg_dump or point-in-time recovery (docs/operations.md, "Backup and restore")');
  process.exit(2);
}
if (!existsSync(config.database.path)) {
  console.error(`there is no database at ${config.database.path} (SQLITE_PATH)`);
  process.exit(1);
}
// A directory that is not there is the operator's typo, said in one line (never a stack trace).
if (!existsSync(dirname(target))) {
  console.error(`there is no directory ${dirname(target)} to write the backup into; create it first (mkdir -p ${dirname(target)})`);
  process.exit(1);
}
if (existsSync(target) && !values.force) {
  console.error(`${target} exists; choose another name or add --force to replace it`);
  process.exit(1);
}
const started = Date.now();
let report;
try {
  report = await backupSqlite(config.database.path, target);
} catch (error) {
  console.error(`backup failed: ${(error as Error).message}`);
  process.exit(1);
}
console.log(`backed up ${config.database.path} to ${target}: ${report.bytes} bytes, ${report.migrations} migrations, ${Date.now() - started} ms`);
console.log('Keep the sealing key (SECRET_KEY, or the key file beside the database) apart from the backup: the backup needs it, and a thief should not find both together.');
