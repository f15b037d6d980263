// Test helper for sqlite-group-commit.test.ts: writes without end through the group-commit
// dialect, 20 at a time, and prints each id once its write is acknowledged. The test kills it.
import SQLite from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { GroupCommitSqliteDialect } from './sqlite-group-commit.js';
import { walDurability } from './wal-sync.js';

// Opened as the service opens it (db.ts): WAL, synced off the event loop before acknowledging.
const sqlite = new SQLite(process.argv[2]!);
const db = new Kysely<{ items: { id: string } }>({ dialect: new GroupCommitSqliteDialect(sqlite, walDurability(sqlite)) });
await sql`create table if not exists items (id text primary key)`.execute(db);

let next = 0;
async function writeForever(): Promise<never> {
  for (;;) {
    const id = `w${next++}`;
    if (next % 2) await db.insertInto('items').values({ id }).execute();
    else await db.transaction().execute((tx) => tx.insertInto('items').values({ id }).execute());
    process.stdout.write(`${id}\n`);
  }
}
await Promise.all(Array.from({ length: 20 }, writeForever));
