import type SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { coalesce } from './coalesce.js';
import type { PlatformTables } from './schema.js';
import { statement } from './statement.js';
import type { Param } from './statement.js';

/**
 * The DPoP jti replay cache in the database (RFC 9449 §11.1), written on every authenticated
 * request, so it stays off the durable path:
 * - SQLite: a side file with synchronous=OFF. A process crash loses nothing (the OS holds the
 *   pages); only a power loss or kernel crash can, and the reboot that follows outlasts the
 *   65-second acceptance window, so no captured proof becomes replayable.
 * - PostgreSQL: an UNLOGGED table: no WAL, truncated if PostgreSQL itself crashes. A proof seen
 *   in the last 65 s before such a crash could be replayed once; with Redis configured, the
 *   cache lives there instead (docs/decisions/004).
 */
export interface ReplayStore {
  remember(jtiHash: string, expiresAt: number): Promise<boolean>;
  prune(now: number): Promise<number>;
}

export function sqliteReplayStore(file: SQLite.Database): ReplayStore {
  file.pragma('journal_mode = WAL');
  file.pragma('synchronous = OFF');
  file.exec('create table if not exists dpop_jtis (jti_hash text primary key, expires_at integer not null) without rowid');
  const insert = file.prepare('insert into dpop_jtis (jti_hash, expires_at) values (?, ?) on conflict do nothing');
  const prune = file.prepare('delete from dpop_jtis where expires_at <= ?');

  // Group commit (coalesce.ts): the jtis remembered during one turn of the event loop are
  // inserted in one transaction just after it, and each caller's promise settles only then, so
  // no request proceeds before its jti is in the file, exactly as with one insert per call, but
  // one commit costs far less than one per authenticated request. The whole turn goes in one
  // transaction (no batch bound: it is in process). A jti seen twice in the same batch hits the
  // primary key on its second insert and is refused like any replay.
  const insertAll = file.transaction((entries: Array<{ jtiHash: string; expiresAt: number }>) =>
    entries.map((entry) => insert.run(entry.jtiHash, entry.expiresAt).changes === 1),
  );
  const rememberAll = coalesce(async (entries: Array<{ jtiHash: string; expiresAt: number }>) => insertAll(entries), Infinity);
  return {
    remember: (jtiHash, expiresAt) => rememberAll({ jtiHash, expiresAt }),
    prune: async (now) => prune.run(now).changes,
  };
}

/**
 * PostgreSQL: a batch of jtis in one statement, built once per process and run as a named
 * statement (statement.ts); the SQL text is the same for any batch (two arrays). Answers the
 * jtis that were not there yet.
 */
export const rememberJtis = statement('dpop jtis remember', (_db: Kysely<PlatformTables>, p: Param<{ hashes: string[]; expiries: number[] }>) =>
  sql<{ jti_hash: string }>`
    insert into dpop_jtis (jti_hash, expires_at)
    select * from unnest(${p('hashes')}::text[], ${p('expiries')}::int8[])
    on conflict do nothing
    returning jti_hash`,
);

export function postgresReplayStore(db: Kysely<PlatformTables>): ReplayStore {
  // Coalesced (coalesce.ts): the jtis of one turn of the event loop go in one statement, so a
  // burst of authenticated requests costs one round trip here, not one each.
  const rememberAll = coalesce(async (entries: Array<{ jtiHash: string; expiresAt: number }>): Promise<boolean[]> => {
    const rows = await rememberJtis.all(db, { hashes: entries.map((e) => e.jtiHash), expiries: entries.map((e) => e.expiresAt) });
    // Only the first of two equal jtis in one batch is fresh; the insert keeps one row for both.
    const fresh = new Set(rows.map((r) => r.jti_hash));
    return entries.map((e) => fresh.delete(e.jtiHash));
  });
  return {
    remember: (jtiHash, expiresAt) => rememberAll({ jtiHash, expiresAt }),
    async prune(now) {
      const result = await db.deleteFrom('dpop_jtis').where('expires_at', '<=', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
