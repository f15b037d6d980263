import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { statement } from '../../platform/store/statement.js';
import type { Param } from '../../platform/store/statement.js';
import type { AccountsTable, CeremoniesTable } from '../../platform/store/schema.js';
import type { PasskeysTable } from './tables.js';

// The passkey statements every sign-in makes, built once per process (platform/store/statement.ts);
// test/store/fast-paths.test.ts holds each to its plain Kysely twin on both backends.

interface SignInTables {
  passkeys: PasskeysTable;
  accounts: AccountsTable;
  ceremonies: CeremoniesTable;
}

/**
 * The passkey an assertion names (its credential id, unique) with its owner's user handle, in one
 * read: the sign-in compares that handle with the assertion's userHandle (WebAuthn L3 §7.2 step 6).
 * A passkey always has its account (foreign key), so the inner join loses nothing.
 */
export const passkeyWithOwner = statement('passkey with its owner', (db: Kysely<SignInTables>, p: Param<{ credentialId: string }>) =>
  db
    .selectFrom('passkeys')
    .innerJoin('accounts', 'accounts.id', 'passkeys.account_id')
    .selectAll('passkeys')
    .select('accounts.user_handle as owner_user_handle')
    .where('passkeys.credential_id', '=', p('credentialId')),
);

/**
 * A sign-in's counter, backup state and device key, compare-and-swapped on the counter verified
 * against, so two racing logins cannot both move it (WebAuthn L3 §7.2 step 21). Its one row
 * answers that it moved.
 */
export const recordSignInUse = statement(
  'passkey sign-in use',
  (db: Kysely<SignInTables>, p: Param<{ id: string; expectedCounter: number; counter: number; backed_up: number; at: number; dpop_jkt: string }>) =>
    db
      .updateTable('passkeys')
      .set({ counter: p('counter'), backed_up: p('backed_up'), last_used_at: p('at'), dpop_jkt: p('dpop_jkt') })
      .where('id', '=', p('id'))
      .where('counter', '=', p('expectedCounter'))
      .returning('id'),
);

/** What takeWithPasskey answers: the taken ceremony's columns (c_…) and passkeyWithOwner's row, all null when there is none. */
export type TakenWithPasskey = { [K in keyof CeremoniesTable as `c_${K & string}`]: CeremoniesTable[K] | null } & {
  [K in keyof PasskeysTable]: PasskeysTable[K] | null;
} & { owner_user_handle: string | null };

/**
 * PostgreSQL: a sign-in's two first steps in one statement, one round trip. The ceremony is taken
 * out (deleted by its id and kind, platform/store/ceremonies.ts takeCeremony, whatever the
 * verification that follows decides: WebAuthn L3 §13.4.3) and the passkey the assertion names is
 * read with its owner's handle (passkeyWithOwner). No ceremony: no row. SQLite runs the two
 * statements one after the other (queries.ts): it has no data-modifying WITH, and is in process.
 */
export const takeWithPasskey = statement('ceremony take with the passkey', (_db: Kysely<SignInTables>, p: Param<{ ceremonyId: string; kind: string; credentialId: string }>) =>
  sql<TakenWithPasskey>`
    with taken as (
      delete from ceremonies where id = ${p('ceremonyId')} and kind = ${p('kind')} returning *
    )
    select taken.id as c_id, taken.kind as c_kind, taken.challenge as c_challenge, taken.username as c_username,
      taken.user_handle as c_user_handle, taken.account_id as c_account_id, taken.session_id as c_session_id, taken.expires_at as c_expires_at,
      passkeys.*, accounts.user_handle as owner_user_handle
    from taken
    left join (passkeys inner join accounts on accounts.id = passkeys.account_id) on passkeys.credential_id = ${p('credentialId')}`,
);
