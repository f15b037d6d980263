import type { Kysely, Selectable } from 'kysely';
import { keysetPage } from '../../platform/store/keyset.js';
import type { KeysetPosition } from '../../platform/store/keyset.js';
import type { AccountsTable } from '../../platform/store/schema.js';
import { passkeyWithOwner, recordSignInUse } from './statements.js';
import type { PasskeysTable, TotpAuthenticatorsTable } from './tables.js';

interface MethodTables {
  passkeys: PasskeysTable;
  totp_authenticators: TotpAuthenticatorsTable;
  accounts: AccountsTable;
}


export type PasskeyRecord = Selectable<PasskeysTable>;

export function passkeyQueries(db: Kysely<MethodTables>) {
  return {
    async insert(passkey: PasskeyRecord): Promise<void> {
      await db.insertInto('passkeys').values(passkey).execute();
    },
    async findByCredentialId(credentialId: string): Promise<PasskeyRecord | undefined> {
      return db.selectFrom('passkeys').selectAll().where('credential_id', '=', credentialId).executeTakeFirst();
    },
    /** A sign-in's passkey with its owner's user handle, in one read (statements.ts). */
    async findWithOwner(credentialId: string): Promise<(PasskeyRecord & { owner_user_handle: string }) | undefined> {
      return passkeyWithOwner.first(db, { credentialId });
    },
    async listCredentialIds(accountId: string): Promise<{ credential_id: string; transports: string }[]> {
      return db.selectFrom('passkeys').select(['credential_id', 'transports']).where('account_id', '=', accountId).execute();
    },
    /**
     * Persists a successful assertion's counter and backup state with a compare-and-swap on the
     * counter we verified against, so two racing logins cannot both move it (WebAuthn L3 §7.2 step 21).
     */
    async recordUse(id: string, expectedCounter: number, use: { counter: number; backed_up: number; at: number; dpop_jkt: string }): Promise<boolean> {
      return (await recordSignInUse.all(db, { id, expectedCounter, ...use })).length === 1;
    },
    /** A step-up assertion: counter and backup state move, the device binding does not. */
    async recordAssertion(id: string, expectedCounter: number, use: { counter: number; backed_up: number; at: number }): Promise<boolean> {
      const result = await db
        .updateTable('passkeys')
        .set({ counter: use.counter, backed_up: use.backed_up, last_used_at: use.at })
        .where('id', '=', id)
        .where('counter', '=', expectedCounter)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async find(accountId: string, id: string): Promise<PasskeyRecord | undefined> {
      return db.selectFrom('passkeys').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    },
    async list(accountId: string, after: KeysetPosition | undefined, limit: number): Promise<PasskeyRecord[]> {
      return keysetPage(db.selectFrom('passkeys').selectAll().where('account_id', '=', accountId), after, limit).execute();
    },
    async count(accountId: string): Promise<number> {
      const row = await db
        .selectFrom('passkeys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async rename(accountId: string, id: string, expectedVersion: number, name: string): Promise<PasskeyRecord | undefined> {
      return db
        .updateTable('passkeys')
        .set({ name, version: expectedVersion + 1 })
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .where('version', '=', expectedVersion)
        .returningAll()
        .executeTakeFirst();
    },
    async remove(accountId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('passkeys').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
    async flag(id: string, at: number): Promise<void> {
      await db.updateTable('passkeys').set({ flagged_at: at }).where('id', '=', id).execute();
    },
    /** The purge: every passkey of the account (key bundles follow by foreign key). */
    async removeAll(accountId: string): Promise<void> {
      await db.deleteFrom('passkeys').where('account_id', '=', accountId).execute();
    },
  };
}

export type TotpRecord = Selectable<TotpAuthenticatorsTable>;

export function totpQueries(db: Kysely<MethodTables>) {
  return {
    async insert(record: TotpRecord): Promise<void> {
      await db.insertInto('totp_authenticators').values(record).execute();
    },
    async find(accountId: string, id: string): Promise<TotpRecord | undefined> {
      return db.selectFrom('totp_authenticators').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    },
    /** One page of the account's authenticators, oldest first. */
    async page(accountId: string, after: KeysetPosition | undefined, limit: number): Promise<TotpRecord[]> {
      return keysetPage(db.selectFrom('totp_authenticators').selectAll().where('account_id', '=', accountId), after, limit).execute();
    },
    async listActive(accountId: string): Promise<TotpRecord[]> {
      return db.selectFrom('totp_authenticators').selectAll().where('account_id', '=', accountId).where('active', '=', 1).execute();
    },
    async countActive(accountId: string): Promise<number> {
      const row = await db
        .selectFrom('totp_authenticators')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .where('active', '=', 1)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /**
     * Accepts a time step at most once per authenticator (RFC 6238 §5.2): the step only moves
     * forward, in one statement, so two requests with the same code cannot both pass.
     */
    async acceptStep(id: string, step: number, at: number, activate: boolean): Promise<boolean> {
      const result = await db
        .updateTable('totp_authenticators')
        .set((eb) => ({
          last_step: step,
          last_used_at: at,
          ...(activate ? { active: 1, confirmed_at: at, version: eb('version', '+', 1) } : {}),
        }))
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async remove(accountId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('totp_authenticators').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
    async removeAll(accountId: string): Promise<void> {
      await db.deleteFrom('totp_authenticators').where('account_id', '=', accountId).execute();
    },
  };
}
