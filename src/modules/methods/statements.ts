import type { Kysely } from 'kysely';
import { statement } from '../../platform/store/statement.js';
import type { Param } from '../../platform/store/statement.js';
import type { AccountsTable } from '../../platform/store/schema.js';
import type { PasskeysTable } from './tables.js';

// The passkey statements every sign-in makes, built once per process (platform/store/statement.ts);
// test/store/fast-paths.test.ts holds each to its plain Kysely twin on both backends.

interface SignInTables {
  passkeys: PasskeysTable;
  accounts: AccountsTable;
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
