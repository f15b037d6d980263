import type { Kysely } from 'kysely';
import { coalesce } from '../../platform/store/coalesce.js';
import type { DatabaseHandle, Dialect } from '../../platform/store/db.js';
import { accountOf } from '../../platform/store/accounts.js';
import type { AccountRecord } from '../../platform/store/accounts.js';
import { keysetPage } from '../../platform/store/keyset.js';
import type { KeysetPosition } from '../../platform/store/keyset.js';
import type { AccountsTable } from '../../platform/store/schema.js';
import type { RefreshTokensTable, SessionRecord, SessionsTable } from './tables.js';
import { accountLock, authByHash, authByHashes, insertRefreshToken, insertSession, openSessionAtOnce, renewalRotate, renewalSpend, renewalStore, renewAtOnce } from './statements.js';
import type { RefreshTokenHolder, RenewalInput, RenewedSession, SessionOpening } from './statements.js';

export type { RefreshTokenHolder, RenewalInput, RenewedSession } from './statements.js';
export type { RefreshTokensTable, SessionRecord, SessionsTable } from './tables.js';

interface SessionTables {
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  accounts: AccountsTable;
}


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

/** The authentication lookup's row, as the statement reads it: the session's columns and its account's. */
type AuthRow = Omit<AuthContextRow, 'account'> & AccountRecord;

/** The row as the session's fields and its account (written out: an object rest is several times slower). */
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
 * The lookup every authenticated request makes, outside any transaction (statements.ts
 * authByHash). Over the network (PostgreSQL), the lookups of one turn of the event loop share a
 * round trip (authByHashes); SQLite is in process and answers each at once.
 */
export function authLookupQueries(handle: Pick<DatabaseHandle, 'db' | 'dialect'>) {
  const { db } = handle;
  if (handle.dialect === 'postgres') {
    const find = coalesce(async (hashes: string[]): Promise<Array<AuthContextRow | undefined>> => {
      const found = new Map<string, AuthContextRow>();
      for (const { matched_hash, ...row } of await authByHashes.all(db, { hashes })) if (matched_hash !== null) found.set(matched_hash, splitAuthRow(row));
      return hashes.map((hash) => found.get(hash));
    });
    return { find };
  }
  return {
    async find(accessHash: string): Promise<AuthContextRow | undefined> {
      const row = await authByHash.first(db, { accessHash });
      return row ? splitAuthRow(row) : undefined;
    },
  };
}

export function sessionQueries(db: Kysely<SessionTables>, dialect: Dialect) {
  return {
    /**
     * Opens a session with its first refresh token unless the account is locked (decision 090),
     * in the caller's transaction; answers the account's locked_at (null: opened, nothing written
     * otherwise). PostgreSQL: one statement that also holds the account's row FOR UPDATE to the
     * end of the transaction (statements.ts openSessionAtOnce). SQLite: the lock check and the
     * two inserts, one writer at a time.
     */
    async openUnlessLocked(opening: SessionOpening): Promise<number | null> {
      if (dialect === 'postgres') return (await openSessionAtOnce.first(db, opening))?.locked_at ?? null;
      const lockedAt = (await accountLock.first(db, { accountId: opening.account_id }))?.locked_at ?? null;
      if (lockedAt !== null) return lockedAt;
      const { refreshHash, ...session } = opening;
      await insertSession.all(db, session);
      await insertRefreshToken.all(db, { hash: refreshHash, sessionId: session.id, at: session.created_at });
      return null;
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
    /** Whether the account is locked now (statements.ts accountLock: on PostgreSQL, a share lock on its row to the end of the transaction). */
    async accountLockedAt(accountId: string): Promise<number | null> {
      return (await accountLock.first(db, { accountId }))?.locked_at ?? null;
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

export function refreshTokenQueries(db: Kysely<SessionTables>) {
  return {
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

/**
 * The renewal, the one writer of a session's rotation (statements.ts RENEWAL_RULE): spend the
 * refresh token only if the rule holds, rotate the session's tokens (capped at its absolute end)
 * and store the new refresh token. Anything else matches no row and writes nothing; the
 * caller's diagnosis then says why. PostgreSQL: one statement (renewAtOnce). SQLite: the same
 * three steps as three statements in one transaction, so the renewal pays neither Kysely's query
 * building nor a read of the session before the spend.
 */
export function renewalQueries(handle: Pick<DatabaseHandle, 'db' | 'dialect'>) {
  const { db } = handle;
  if (handle.dialect === 'postgres') {
    return { atOnce: (input: RenewalInput): Promise<RenewedSession | undefined> => renewAtOnce.first(db, input) };
  }
  return {
    async atOnce(input: RenewalInput): Promise<RenewedSession | undefined> {
      return db.transaction().execute(async (tx) => {
        const spent = await renewalSpend.first(tx, input);
        if (!spent) return undefined;
        const step = { ...input, sessionId: spent.session_id };
        const rotated = (await renewalRotate.first(tx, step))!;
        await renewalStore.all(tx, step);
        return rotated;
      });
    },
  };
}
