import type SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

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
  return {
    remember: async (jtiHash, expiresAt) => insert.run(jtiHash, expiresAt).changes === 1,
    prune: async (now) => prune.run(now).changes,
  };
}

export function postgresReplayStore(db: Kysely<Database>): ReplayStore {
  return {
    async remember(jtiHash, expiresAt) {
      const result = await db
        .insertInto('dpop_jtis')
        .values({ jti_hash: jtiHash, expires_at: expiresAt })
        .onConflict((oc) => oc.column('jti_hash').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
    },
    async prune(now) {
      const result = await db.deleteFrom('dpop_jtis').where('expires_at', '<=', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
