import { sql } from 'kysely';
import type { CompiledQuery, Kysely, Selectable } from 'kysely';
import { coalesce } from '../../platform/store/coalesce.js';
import type { DatabaseHandle, Dialect } from '../../platform/store/db.js';
import { ACCOUNT_COLUMNS, accountOf } from '../../platform/store/accounts.js';
import type { AccountRecord } from '../../platform/store/accounts.js';
import { keysetPage } from '../../platform/store/keyset.js';
import type { KeysetPosition } from '../../platform/store/keyset.js';
import { compiledOnce, preparedQuery } from '../../platform/store/prepared.js';
import type { AccountsTable } from '../../platform/store/schema.js';

/** Sessions and their rotating refresh tokens (001-foundation). */
export interface SessionsTable {
  id: string;
  account_id: string;
  jkt: string;
  trusted: number;
  access_hash: string | null;
  access_expires_at: number;
  refresh_expires_at: number;
  expires_at: number;
  created_at: number;
  last_seen_at: number;
  revoked_at: number | null;
  user_agent: string;
  ip: string;
  device_label: string;
  /** Approximate place when the session opened ("Berlin, DE"), null when unknown (015-session-devices). */
  location: string | null;
  /** The passkey the session signed in with, null when none did (015-session-devices). */
  passkey_id: string | null;
}

export interface RefreshTokensTable {
  hash: string;
  session_id: string;
  created_at: number;
  used_at: number | null;
}

interface SessionTables {
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  accounts: AccountsTable;
}

export type SessionRecord = Selectable<SessionsTable>;

/**
 * What an authenticated request needs, read in one indexed lookup on the access-token hash
 * (joined to its account by primary key), so GET /me costs no second query.
 */
export interface AuthContextRow {
  session_id: string;
  jkt: string;
  trusted: number;
  access_expires_at: number;
  expires_at: number;
  last_seen_at: number;
  account: AccountRecord;
}

/** The authentication lookup: one indexed read on the access-token hash, joined to its account by primary key. */
function authQueryFor(db: Kysely<SessionTables>, accessHash: string) {
  return authSelect(db).where('sessions.access_hash', '=', accessHash);
}

function authSelect(db: Kysely<SessionTables>) {
  return db
    .selectFrom('sessions')
    .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
    .select([
      'sessions.id as session_id',
      'sessions.jkt',
      'sessions.trusted',
      'sessions.access_expires_at',
      'sessions.expires_at',
      'sessions.last_seen_at',
    ])
    .select(ACCOUNT_COLUMNS.map((column) => `accounts.${column}` as const))
    .where('sessions.revoked_at', 'is', null);
}

type AuthRow = Awaited<ReturnType<ReturnType<typeof authQueryFor>['executeTakeFirstOrThrow']>>;
type AuthCompiled = CompiledQuery<AuthRow>;

function compileAuthQuery(db: Kysely<SessionTables>): AuthCompiled {
  const compiled = authQueryFor(db, '').compile();
  // The hash must be the one and only parameter, or binding it by position would be wrong.
  if (compiled.parameters.length !== 1) throw new Error('the authentication query must have exactly one parameter');
  return compiled;
}

/** The row as the session's fields and its account (written out, and accountOf is a literal too: an object rest is several times slower). */
function splitAuthRow(row: AuthRow): AuthContextRow {
  return {
    session_id: row.session_id,
    jkt: row.jkt,
    trusted: row.trusted,
    access_expires_at: row.access_expires_at,
    expires_at: row.expires_at,
    last_seen_at: row.last_seen_at,
    account: accountOf(row),
  };
}

/**
 * PostgreSQL: the authentication lookups of one turn of the event loop in one statement
 * (coalesce.ts), `access_hash = any($1)` on the same unique index, so a burst of requests costs
 * one round trip, not one each. Compiled once; each batch binds only the array of hashes.
 */
function coalescedAuthLookup(db: Kysely<SessionTables>): (accessHash: string) => Promise<AuthContextRow | undefined> {
  const compiled = authSelect(db)
    .select('sessions.access_hash as matched_hash')
    .where(sql<boolean>`sessions.access_hash = any(${sql.val([] as string[])})`)
    .compile();
  if (compiled.parameters.length !== 1) throw new Error('the batched authentication query must have exactly one parameter');
  return coalesce(async (hashes: string[]): Promise<Array<AuthContextRow | undefined>> => {
    const { rows } = await db.executeQuery<AuthRow & { matched_hash: string }>({ ...compiled, parameters: [hashes] } as CompiledQuery<AuthRow & { matched_hash: string }>);
    const found = new Map<string, AuthContextRow>();
    for (const { matched_hash, ...row } of rows) found.set(matched_hash, splitAuthRow(row));
    return hashes.map((hash) => found.get(hash));
  });
}

/**
 * The lookup every authenticated request makes, outside any transaction. Over the network
 * (PostgreSQL), concurrent authentications share a round trip; SQLite is in process and
 * answers each at once, with a statement built and compiled once (each call binds the hash).
 */
export function authLookupQueries(handle: Pick<DatabaseHandle, 'db' | 'dialect' | 'readOne'>) {
  const db = handle.db as Kysely<SessionTables>;
  if (handle.dialect === 'postgres') return { find: coalescedAuthLookup(db) };
  const compiled = compileAuthQuery(db);
  // SQLite: the one row straight from the statement, with the group committer's read rules.
  const { readOne } = handle;
  if (readOne) {
    return {
      async find(accessHash: string): Promise<AuthContextRow | undefined> {
        const row = await readOne<AuthRow>(compiled.sql, [accessHash]);
        return row ? splitAuthRow(row) : undefined;
      },
    };
  }
  return {
    async find(accessHash: string): Promise<AuthContextRow | undefined> {
      const { rows } = await db.executeQuery({ ...compiled, parameters: [accessHash] } as AuthCompiled);
      const row = rows[0];
      return row ? splitAuthRow(row) : undefined;
    },
  };
}

// The statements every session opening runs (each login, sign-up, recovery and join, inside the
// caller's transaction) are compiled once per dialect (prepared.ts compiledOnce) instead of on
// every call: their query groups are built for each transaction, and building and compiling a
// Kysely query cost more than SQLite running it (about a tenth of a login's CPU).

/** Every column of SessionsTable, each once: one missing here, or unknown to it, does not compile. */
const everySessionColumn: { [Column in keyof SessionsTable]-?: true } = {
  id: true,
  account_id: true,
  jkt: true,
  trusted: true,
  access_hash: true,
  access_expires_at: true,
  refresh_expires_at: true,
  expires_at: true,
  created_at: true,
  last_seen_at: true,
  revoked_at: true,
  user_agent: true,
  ip: true,
  device_label: true,
  location: true,
  passkey_id: true,
};
const SESSION_COLUMNS = Object.freeze(Object.keys(everySessionColumn)) as ReadonlyArray<keyof SessionsTable>;

export function sessionQueries(db: Kysely<SessionTables>, dialect: Dialect) {
  return {
    async insert(session: SessionRecord): Promise<void> {
      const insert = compiledOnce(
        dialect,
        'session insert',
        (p) => db.insertInto('sessions').values(Object.fromEntries(SESSION_COLUMNS.map((column) => [column, p(column)])) as unknown as SessionRecord),
        session,
      );
      await db.executeQuery(insert);
    },
    async findById(id: string): Promise<SessionRecord | undefined> {
      return db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /** The passkey a session signed in with, if one did. */
    async passkeyOf(id: string): Promise<string | null> {
      return (await db.selectFrom('sessions').select('passkey_id').where('id', '=', id).executeTakeFirst())?.passkey_id ?? null;
    },
    /** What decides whether a session may keep an event stream open: its own state and its account's. */
    async streamState(id: string): Promise<{ revoked_at: number | null; expires_at: number; deleted_at: number | null; locked_at: number | null } | undefined> {
      return db
        .selectFrom('sessions')
        .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
        .select(['sessions.revoked_at', 'sessions.expires_at', 'accounts.deleted_at', 'accounts.locked_at'])
        .where('sessions.id', '=', id)
        .executeTakeFirst();
    },
    /**
     * Sessions neither revoked nor expired, over all accounts (the live-sessions gauge, asked
     * at most every few seconds by /metrics scrapes). No index serves it: a scan of the table.
     */
    async countLive(now: number): Promise<number> {
      const row = await db
        .selectFrom('sessions')
        .select((eb) => eb.fn.countAll().as('live'))
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .where('refresh_expires_at', '>', now)
        .executeTakeFirstOrThrow();
      return Number(row.live);
    },
    async touch(id: string, at: number): Promise<void> {
      await db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', id).execute();
    },
    /** Live sessions of an account in (created_at, id) order, after a keyset position. */
    async listLive(accountId: string, now: number, after: KeysetPosition | undefined, limit: number): Promise<SessionRecord[]> {
      const live = db
        .selectFrom('sessions')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .where('refresh_expires_at', '>', now);
      return keysetPage(live, after, limit).execute();
    },
    /** Every session of the account, live or not, in (created_at, id) order (the export). */
    async all(accountId: string, after: KeysetPosition | undefined, limit: number): Promise<SessionRecord[]> {
      return keysetPage(db.selectFrom('sessions').selectAll().where('account_id', '=', accountId), after, limit).execute();
    },
    /** The purge: refresh tokens go with their sessions (foreign key). */
    async removeAll(accountId: string): Promise<void> {
      await db.deleteFrom('sessions').where('account_id', '=', accountId).execute();
    },
    /**
     * A lock: revokes every live session of the account. The access-token hashes stay (unlike
     * a sign-out), so until they expire a token still names its account and is answered 403
     * account_locked rather than a bare 401 (decision 090).
     */
    async revokeAllForLock(accountId: string, at: number): Promise<number> {
      const result = await db
        .updateTable('sessions')
        .set({ revoked_at: at })
        .where('account_id', '=', accountId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    /** The refusal path of an unknown access token: was it a session of an account now locked? */
    async lockedHolder(accessHash: string): Promise<{ jkt: string; locked_at: number | null } | undefined> {
      return db
        .selectFrom('sessions')
        .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
        .select(['sessions.jkt', 'accounts.locked_at'])
        .where('sessions.access_hash', '=', accessHash)
        .where('sessions.revoked_at', 'is not', null)
        .executeTakeFirst();
    },
    /**
     * Whether the account is locked now (a new session's transaction asks it). On PostgreSQL the
     * read takes a share lock on the account row, held to the end of the caller's transaction: a
     * lock being written meanwhile is waited for and then seen (READ COMMITTED reads the newest
     * version once the lock is granted), and a lock that comes after waits for this session to
     * commit, then revokes it with the others. A plain read would let a login that raced the
     * lock keep a live session. SQLite has one writer at a time, so there is nothing to race.
     */
    async accountLockedAt(accountId: string): Promise<number | null> {
      const read = compiledOnce(
        dialect,
        'account lock check',
        (p) => {
          const query = db.selectFrom('accounts').select('locked_at').where('id', '=', p('accountId'));
          return dialect === 'postgres' ? query.forShare() : query;
        },
        { accountId },
      );
      const { rows } = await db.executeQuery(read);
      return rows[0]?.locked_at ?? null;
    },
    /** Revokes every live session of the account but one; how many were revoked. */
    async revokeAllBut(accountId: string, keepId: string, at: number): Promise<number> {
      const result = await db
        .updateTable('sessions')
        .set({ revoked_at: at, access_hash: null })
        .where('account_id', '=', accountId)
        .where('id', '!=', keepId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    /** Revokes a live session of the account; false when there is none by that id. */
    async revoke(accountId: string, id: string, at: number): Promise<boolean> {
      const result = await db
        .updateTable('sessions')
        .set({ revoked_at: at, access_hash: null })
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}

/** A refresh token's state and its session's, as the diagnosis of a refused renewal reads them. */
export interface RefreshTokenHolder {
  used_at: number | null;
  session_id: string;
  account_id: string;
  jkt: string;
  revoked_at: number | null;
  refresh_expires_at: number;
  expires_at: number;
}

export function refreshTokenQueries(db: Kysely<SessionTables>, dialect: Dialect) {
  return {
    async insert(hash: string, sessionId: string, at: number): Promise<void> {
      const insert = compiledOnce(
        dialect,
        'refresh token insert',
        (p) => db.insertInto('refresh_tokens').values({ hash: p('hash'), session_id: p('sessionId'), created_at: p('at') as unknown as number, used_at: p('usedAt') as unknown as null }),
        { hash, sessionId, at, usedAt: null },
      );
      await db.executeQuery(insert);
    },
    /** Why a renewal matched no row: the token (used or not) and its session, in one read on the token's key. */
    async holder(hash: string): Promise<RefreshTokenHolder | undefined> {
      return db
        .selectFrom('refresh_tokens')
        .innerJoin('sessions', 'sessions.id', 'refresh_tokens.session_id')
        .select(['refresh_tokens.used_at', 'refresh_tokens.session_id', 'sessions.account_id', 'sessions.jkt', 'sessions.revoked_at', 'sessions.refresh_expires_at', 'sessions.expires_at'])
        .where('refresh_tokens.hash', '=', hash)
        .executeTakeFirst();
    },
    /**
     * Spends an unused token without a renewal (its session has expired), so that presenting it
     * again reads as a reuse. Atomic: `used_at is null` is the condition.
     */
    async spend(hash: string, at: number): Promise<void> {
      await db.updateTable('refresh_tokens').set({ used_at: at }).where('hash', '=', hash).where('used_at', 'is', null).execute();
    },
  };
}

/** What a renewal in one statement needs: the presented token, the proof's key, the new tokens' hashes and lifetimes. */
export interface RenewalInput {
  refreshHash: string;
  jkt: string;
  now: number;
  accessHash: string;
  accessExpiresAt: number;
  newRefreshHash: string;
  refreshExpiresAt: number;
}

export interface RenewedSession {
  id: string;
  trusted: number;
  access_expires_at: number;
  refresh_expires_at: number;
}

/**
 * The renewal, the one writer of a session's rotation (RFC 9700 §4.14.2): spend the refresh
 * token only if it is unused and its session is live (not revoked, neither end reached) and
 * bound to the proof's key, rotate the session's tokens (capped at its absolute end) and store
 * the new refresh token. Anything else (an unknown or reused token, another key, an ended
 * session) matches no row and writes nothing; the caller's diagnosis then says why.
 *
 * PostgreSQL: one statement, one round trip, no explicit transaction (a statement is atomic),
 * run as a named prepared statement: each connection parses and plans it once, which halves the
 * database's CPU per renewal (docs/performance.md). Of two renewals racing with one token, the
 * second finds it used (the row lock serialises them) and matches no row. SQLite has no
 * data-modifying WITH: there the same three steps are three statements built once, in one
 * transaction (sqliteRenewal).
 */
export function renewalQueries(handle: Pick<DatabaseHandle, 'db' | 'dialect' | 'pool'>) {
  const db = handle.db as Kysely<SessionTables>;
  if (handle.dialect !== 'postgres') return sqliteRenewal(db);
  const renew = preparedQuery(
    db,
    (p: RenewalInput) => sql<RenewedSession>`
      with used as (
        update refresh_tokens set used_at = ${p.now}
        from sessions
        where refresh_tokens.hash = ${p.refreshHash} and refresh_tokens.used_at is null
          and sessions.id = refresh_tokens.session_id and sessions.revoked_at is null and sessions.jkt = ${p.jkt}
          and sessions.refresh_expires_at > ${p.now} and sessions.expires_at > ${p.now}
        returning refresh_tokens.session_id
      ), rotated as (
        update sessions set
          access_hash = ${p.accessHash},
          access_expires_at = least(${p.accessExpiresAt}::bigint, sessions.expires_at),
          refresh_expires_at = least(${p.refreshExpiresAt}::bigint, sessions.expires_at),
          last_seen_at = ${p.now}
        from used where sessions.id = used.session_id
        returning sessions.id, sessions.trusted, sessions.access_expires_at, sessions.refresh_expires_at
      ), stored as (
        insert into refresh_tokens (hash, session_id, created_at, used_at)
        select ${p.newRefreshHash}, id, ${p.now}, null from rotated
      )
      select id, trusted, access_expires_at, refresh_expires_at from rotated`,
    { name: 'vid-renew-at-once', pool: handle.pool },
  );
  return {
    async atOnce(input: RenewalInput): Promise<RenewedSession | undefined> {
      return (await renew(input))[0];
    },
  };
}

/**
 * SQLite: the renewal as PostgreSQL's statement does it (same conditions, same result), as three
 * statements compiled once and run in one transaction, so the renewal pays neither Kysely's
 * query building (about an eighth of its CPU) nor a read of the session before the spend. The
 * spend comes first and carries every condition: when it matches no row nothing was written.
 */
function sqliteRenewal(db: Kysely<SessionTables>) {
  const spend = preparedQuery(
    db,
    (p: RenewalInput) => sql<{ session_id: string }>`
      update refresh_tokens set used_at = ${p.now}
      where hash = ${p.refreshHash} and used_at is null
        and session_id in (
          select id from sessions
          where revoked_at is null and jkt = ${p.jkt} and refresh_expires_at > ${p.now} and expires_at > ${p.now}
        )
      returning session_id`,
  );
  const rotate = preparedQuery(
    db,
    (p: RenewalInput & { sessionId: string }) => sql<RenewedSession>`
      update sessions set
        access_hash = ${p.accessHash},
        access_expires_at = min(${p.accessExpiresAt}, expires_at),
        refresh_expires_at = min(${p.refreshExpiresAt}, expires_at),
        last_seen_at = ${p.now}
      where id = ${p.sessionId}
      returning id, trusted, access_expires_at, refresh_expires_at`,
  );
  const store = preparedQuery(
    db,
    (p: RenewalInput & { sessionId: string }) =>
      sql`insert into refresh_tokens (hash, session_id, created_at, used_at) values (${p.newRefreshHash}, ${p.sessionId}, ${p.now}, null)`,
  );
  return {
    async atOnce(input: RenewalInput): Promise<RenewedSession | undefined> {
      return db.transaction().execute(async (tx) => {
        const spent = (await spend(input, tx))[0];
        if (!spent) return undefined;
        const step = { ...input, sessionId: spent.session_id };
        const rotated = (await rotate(step, tx))[0]!;
        await store(step, tx);
        return rotated;
      });
    },
  };
}
