import { sql } from 'kysely';
import type { CompiledQuery, Kysely, Selectable } from 'kysely';
import { coalesce } from '../../platform/store/coalesce.js';
import type { AccountRecord } from '../../platform/store/accounts.js';
import type { Database, SessionsTable } from '../../platform/store/schema.js';

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
function authQueryFor(db: Kysely<Database>, accessHash: string) {
  return authSelect(db).where('sessions.access_hash', '=', accessHash);
}

function authSelect(db: Kysely<Database>) {
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
      'accounts.id',
      'accounts.username',
      'accounts.username_canonical',
      'accounts.username_skeleton',
      'accounts.user_handle',
      'accounts.display_name',
      'accounts.locale',
      'accounts.default_country',
      'accounts.region',
      'accounts.version',
      'accounts.created_at',
    ])
    .where('sessions.revoked_at', 'is', null);
}

type AuthRow = Awaited<ReturnType<ReturnType<typeof authQueryFor>['executeTakeFirstOrThrow']>>;
type AuthCompiled = CompiledQuery<AuthRow>;

function compileAuthQuery(db: Kysely<Database>): AuthCompiled {
  const compiled = authQueryFor(db, '').compile();
  // The hash must be the one and only parameter, or binding it by position would be wrong.
  if (compiled.parameters.length !== 1) throw new Error('the authentication query must have exactly one parameter');
  return compiled;
}

function splitAuthRow(row: AuthRow): AuthContextRow {
  const { session_id, jkt, trusted, access_expires_at, expires_at, last_seen_at, ...account } = row;
  return { session_id, jkt, trusted, access_expires_at, expires_at, last_seen_at, account };
}

/**
 * PostgreSQL: the authentication lookups of one turn of the event loop in one statement
 * (coalesce.ts), `access_hash = any($1)` on the same unique index, so a burst of requests costs
 * one round trip, not one each. Compiled once; each batch binds only the array of hashes.
 */
export function coalescedAuthLookup(db: Kysely<Database>): (accessHash: string) => Promise<AuthContextRow | undefined> {
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

export function sessionQueries(db: Kysely<Database>) {
  let authQuery: AuthCompiled | undefined;
  return {
    async insert(session: SessionRecord): Promise<void> {
      await db.insertInto('sessions').values(session).execute();
    },
    async findByAccessHash(accessHash: string): Promise<AuthContextRow | undefined> {
      // Every authenticated request runs this query: it is built and compiled once, and each
      // call only binds the hash (the same SQL and plan as building it per call).
      authQuery ??= compileAuthQuery(db);
      const query: AuthCompiled = { ...authQuery, parameters: [accessHash] };
      const { rows } = await db.executeQuery(query);
      const row = rows[0];
      return row ? splitAuthRow(row) : undefined;
    },
    async findById(id: string): Promise<SessionRecord | undefined> {
      return db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async touch(id: string, at: number): Promise<void> {
      await db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', id).execute();
    },
    /** Live sessions of an account in (created_at, id) order, after a keyset position. */
    async listLive(accountId: string, now: number, after: { created_at: number; id: string } | undefined, limit: number): Promise<SessionRecord[]> {
      let query = db
        .selectFrom('sessions')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .where('refresh_expires_at', '>', now);
      if (after) {
        query = query.where((eb) =>
          eb.or([eb('created_at', '>', after.created_at), eb.and([eb('created_at', '=', after.created_at), eb('id', '>', after.id)])]),
        );
      }
      return query.orderBy('created_at').orderBy('id').limit(limit).execute();
    },
    async rotateTokens(id: string, tokens: { access_hash: string; access_expires_at: number; refresh_expires_at: number; last_seen_at: number }): Promise<void> {
      await db.updateTable('sessions').set(tokens).where('id', '=', id).where('revoked_at', 'is', null).execute();
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
