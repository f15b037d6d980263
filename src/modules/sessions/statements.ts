import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import { ACCOUNT_COLUMNS } from '../../platform/store/accounts.js';
import { statement } from '../../platform/store/statement.js';
import type { Param } from '../../platform/store/statement.js';
import type { AccountsTable } from '../../platform/store/schema.js';
import type { RefreshTokensTable, SessionRecord, SessionsTable } from './tables.js';

// The hot statements of sessions, each beside the rule it mirrors, built once per process
// (platform/store/statement.ts). test/store/fast-paths.test.ts runs each against a plain Kysely
// twin on random data, on both backends.

interface SessionTables {
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  accounts: AccountsTable;
}

/**
 * The authentication lookup every authenticated request makes (PRODUCT §1, RFC 9449 §7.1): a
 * session not revoked, found by its access token's hash on its unique index, joined to its
 * account by primary key, so GET /me costs no second query. Expiry and the proof's key are
 * checked by the service on the row (service.ts authenticate), so the refusal can say which.
 */
function authSelect(db: Kysely<SessionTables>) {
  return db
    .selectFrom('sessions')
    .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
    .select(['sessions.id as session_id', 'sessions.jkt', 'sessions.trusted', 'sessions.access_expires_at', 'sessions.expires_at', 'sessions.last_seen_at'])
    .select(ACCOUNT_COLUMNS.map((column) => `accounts.${column}` as const))
    .where('sessions.revoked_at', 'is', null);
}

/** One lookup (SQLite, in process: each answered at once). */
export const authByHash = statement('authentication lookup', (db: Kysely<SessionTables>, p: Param<{ accessHash: string }>) =>
  authSelect(db).where('sessions.access_hash', '=', p('accessHash')),
);

/**
 * The lookups of one turn of the event loop in one statement (PostgreSQL, over the network:
 * coalesce.ts), `access_hash = any($1)` on the same unique index, so a burst of requests costs
 * one round trip, not one each. Each row says which hash it answers.
 */
export const authByHashes = statement('authentication lookups', (db: Kysely<SessionTables>, p: Param<{ hashes: string[] }>) =>
  authSelect(db)
    .select('sessions.access_hash as matched_hash')
    .where(sql<boolean>`sessions.access_hash = any(${p('hashes')})`),
);

/** A session's insert, in the transaction that opens it (every login, sign-up, recovery and join). */
export const insertSession = statement('session insert', (db: Kysely<SessionTables>, p: Param<SessionRecord>) =>
  db.insertInto('sessions').values({
    id: p('id'),
    account_id: p('account_id'),
    jkt: p('jkt'),
    trusted: p('trusted'),
    access_hash: p('access_hash'),
    access_expires_at: p('access_expires_at'),
    refresh_expires_at: p('refresh_expires_at'),
    expires_at: p('expires_at'),
    created_at: p('created_at'),
    last_seen_at: p('last_seen_at'),
    revoked_at: p('revoked_at'),
    user_agent: p('user_agent'),
    ip: p('ip'),
    device_label: p('device_label'),
    location: p('location'),
    passkey_id: p('passkey_id'),
  }),
);

/** A new refresh token, unused, beside the session it opens. */
export const insertRefreshToken = statement('refresh token insert', (db: Kysely<SessionTables>, p: Param<{ hash: string; sessionId: string; at: number }>) =>
  db.insertInto('refresh_tokens').values({ hash: p('hash'), session_id: p('sessionId'), created_at: p('at'), used_at: null }),
);

/**
 * Whether the account is locked (decision 090), asked by the transaction that opens a session.
 * On PostgreSQL the read takes a share lock on the account row, held to the end of the caller's
 * transaction: a lock being written meanwhile is waited for and then seen (READ COMMITTED reads
 * the newest version once the lock is granted), and a lock that comes after waits for this
 * session to commit, then revokes it with the others. A plain read would let a login that raced
 * the lock keep a live session. SQLite has one writer at a time, so there is nothing to race.
 */
export const accountLock = statement('account lock check', (db: Kysely<SessionTables>, p: Param<{ accountId: string }>, dialect) => {
  const query = db.selectFrom('accounts').select('locked_at').where('id', '=', p('accountId'));
  return dialect === 'postgres' ? query.forShare() : query;
});

/** A session to open and its first refresh token's hash. */
export type SessionOpening = SessionRecord & { refreshHash: string };

/**
 * PostgreSQL: a session's opening in one statement, inside the caller's transaction. It takes the
 * account's row FOR UPDATE (the lock check of accountLock, held as strongly as the signal the
 * opening writes next would take it, so that signal need not take it again: signal.ts
 * accountRowsHeld), and inserts the session and its refresh token unless the account is locked.
 * A missing account is not a lock: the insert then fails on its foreign key, as the plain steps
 * do. Answers the account's locked_at (null: opened). SQLite runs the same steps one by one
 * (queries.ts): it has no data-modifying WITH, and one writer, so nothing to lock.
 */
export const openSessionAtOnce = statement('session opening', (_db: Kysely<SessionTables>, p: Param<SessionOpening>) =>
  sql<{ locked_at: number | null }>`
    with account as (
      select locked_at from accounts where id = ${p('account_id')} for update
    ), opened as (
      insert into sessions (id, account_id, jkt, trusted, access_hash, access_expires_at, refresh_expires_at, expires_at,
        created_at, last_seen_at, revoked_at, user_agent, ip, device_label, location, passkey_id)
      select ${p('id')}, ${p('account_id')}, ${p('jkt')}, ${p('trusted')}, ${p('access_hash')}, ${p('access_expires_at')}, ${p('refresh_expires_at')}, ${p('expires_at')},
        ${p('created_at')}, ${p('last_seen_at')}, ${p('revoked_at')}, ${p('user_agent')}, ${p('ip')}, ${p('device_label')}, ${p('location')}, ${p('passkey_id')}
      where not exists (select 1 from account where locked_at is not null)
      returning id
    ), token as (
      insert into refresh_tokens (hash, session_id, created_at, used_at)
      select ${p('refreshHash')}, id, ${p('created_at')}, null from opened
    )
    select (select locked_at from account) as locked_at`,
);

/** What a renewal needs: the presented token, the proof's key, the new tokens' hashes and lifetimes. */
export interface RenewalInput {
  refreshHash: string;
  jkt: string;
  now: number;
  accessHash: string;
  accessExpiresAt: number;
  newRefreshHash: string;
  refreshExpiresAt: number;
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

/** Why a known refresh token does not renew its session (the first condition of RENEWAL_RULE it fails). */
export type RenewalRefusal = 'ended' | 'other_key' | 'used' | 'expired';

/**
 * Renewal's rule (RFC 9700 §4.14.2, PRODUCT §1), written once: a refresh token renews its
 * session when each condition holds. The renewal statements carry all of them at once, in SQL
 * over the token joined to its session; when they match no row, the diagnosis (service.ts
 * whyNotRenewed) finds the first one the token fails, in this order, to say why and to write
 * what that refusal decides (a reuse revokes the session, an expired session's token is spent).
 */
export const RENEWAL_RULE: ReadonlyArray<{
  refusal: RenewalRefusal;
  sql: (p: Param<RenewalInput>) => RawBuilder<unknown>;
  holds: (holder: RefreshTokenHolder, input: Pick<RenewalInput, 'jkt' | 'now'>) => boolean;
}> = [
  { refusal: 'ended', sql: () => sql`sessions.revoked_at is null`, holds: (h) => h.revoked_at === null },
  // Before the token's use: someone holding a copy of the token but not the key can neither burn it nor revoke the session.
  { refusal: 'other_key', sql: (p) => sql`sessions.jkt = ${p('jkt')}`, holds: (h, input) => h.jkt === input.jkt },
  { refusal: 'used', sql: () => sql`refresh_tokens.used_at is null`, holds: (h) => h.used_at === null },
  {
    refusal: 'expired',
    sql: (p) => sql`sessions.refresh_expires_at > ${p('now')} and sessions.expires_at > ${p('now')}`,
    holds: (h, input) => h.refresh_expires_at > input.now && h.expires_at > input.now,
  },
];

/** The first condition of RENEWAL_RULE the token fails, or undefined when it renews. */
export function renewalRefusal(holder: RefreshTokenHolder, input: Pick<RenewalInput, 'jkt' | 'now'>): RenewalRefusal | undefined {
  return RENEWAL_RULE.find((condition) => !condition.holds(holder, input))?.refusal;
}

/** Spends the presented token when RENEWAL_RULE holds: the one step that decides a renewal. */
const spend = (p: Param<RenewalInput>) => sql<{ session_id: string }>`
  update refresh_tokens set used_at = ${p('now')}
  from sessions
  where refresh_tokens.hash = ${p('refreshHash')} and sessions.id = refresh_tokens.session_id
    and ${sql.join(RENEWAL_RULE.map((condition) => condition.sql(p)), sql` and `)}
  returning refresh_tokens.session_id`;

/** The session's new tokens, neither outliving the session's absolute end. */
const rotation = (p: Param<RenewalInput>, dialect: 'sqlite' | 'postgres') => {
  // PostgreSQL types a parameter from its use: least() of two needs it said.
  const capped = (value: number) => (dialect === 'postgres' ? sql`least(${value}::bigint, sessions.expires_at)` : sql`min(${value}, sessions.expires_at)`);
  return sql`
    access_hash = ${p('accessHash')},
    access_expires_at = ${capped(p('accessExpiresAt'))},
    refresh_expires_at = ${capped(p('refreshExpiresAt'))},
    last_seen_at = ${p('now')}`;
};

export interface RenewedSession {
  id: string;
  trusted: number;
  access_expires_at: number;
  refresh_expires_at: number;
}

/**
 * PostgreSQL: the renewal in one statement, one round trip, no explicit transaction (a statement
 * is atomic), as a named prepared statement. Of two renewals racing with one token, the second
 * finds it used (the row lock serialises them) and matches no row.
 */
export const renewAtOnce = statement('renewal', (_db: Kysely<SessionTables>, p: Param<RenewalInput>) =>
  sql<RenewedSession>`
    with used as (${spend(p)}), rotated as (
      update sessions set ${rotation(p, 'postgres')}
      from used where sessions.id = used.session_id
      returning sessions.id, sessions.trusted, sessions.access_expires_at, sessions.refresh_expires_at
    ), stored as (
      insert into refresh_tokens (hash, session_id, created_at, used_at)
      select ${p('newRefreshHash')}, id, ${p('now')}, null from rotated
    )
    select id, trusted, access_expires_at, refresh_expires_at from rotated`,
);

/**
 * SQLite has no data-modifying WITH: the same three steps are three statements, run in one
 * transaction (queries.ts renewalQueries). The spend comes first and carries the whole rule:
 * when it matches no row nothing was written.
 */
export const renewalSpend = statement('renewal spend', (_db: Kysely<SessionTables>, p: Param<RenewalInput>) => spend(p));

export const renewalRotate = statement('renewal rotate', (_db: Kysely<SessionTables>, p: Param<RenewalInput & { sessionId: string }>) =>
  sql<RenewedSession>`
    update sessions set ${rotation(p, 'sqlite')}
    where id = ${p('sessionId')}
    returning id, trusted, access_expires_at, refresh_expires_at`,
);

export const renewalStore = statement('renewal store', (_db: Kysely<SessionTables>, p: Param<RenewalInput & { sessionId: string }>) =>
  sql`insert into refresh_tokens (hash, session_id, created_at, used_at) values (${p('newRefreshHash')}, ${p('sessionId')}, ${p('now')}, null)`,
);
