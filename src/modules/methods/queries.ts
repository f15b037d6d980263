import type { Kysely, Selectable } from 'kysely';
import { keysetPage } from '../../platform/store/keyset.js';
import type { KeysetPosition } from '../../platform/store/keyset.js';
import type { CeremonyRecord } from '../../platform/store/ceremonies.js';
import { takeCeremony } from '../../platform/store/ceremonies.js';
import type { Dialect } from '../../platform/store/db.js';
import type { AccountsTable, CeremoniesTable } from '../../platform/store/schema.js';
import { passkeyWithOwner, recordSignInUse, takeWithPasskey } from './statements.js';
import type { PasskeysTable, TotpAuthenticatorsTable } from './tables.js';

interface MethodTables {
  passkeys: PasskeysTable;
  totp_authenticators: TotpAuthenticatorsTable;
  accounts: AccountsTable;
  ceremonies: CeremoniesTable;
}

/** A passkey with its owner's user handle, as a sign-in reads it. */
export type PasskeyWithOwner = PasskeyRecord & { owner_user_handle: string };


export type PasskeyRecord = Selectable<PasskeysTable>;

export function passkeyQueries(db: Kysely<MethodTables>, dialect: Dialect) {
  return {
    /**
     * A sign-in's first steps: takes the ceremony out (undefined: there was none of that id and
     * kind) and reads the passkey the assertion names with its owner (undefined: none).
     * PostgreSQL: one statement (statements.ts takeWithPasskey); SQLite: the take, then the read.
     */
    async takeWithPasskey(ceremonyId: string, kind: string, credentialId: string): Promise<{ ceremony: CeremonyRecord | undefined; passkey: PasskeyWithOwner | undefined }> {
      if (dialect !== 'postgres') {
        const ceremony = await takeCeremony.first(db, { id: ceremonyId, kind });
        return { ceremony, passkey: ceremony && (await passkeyWithOwner.first(db, { credentialId })) };
      }
      const row = await takeWithPasskey.first(db, { ceremonyId, kind, credentialId });
      if (!row) return { ceremony: undefined, passkey: undefined };
      const ceremony: CeremonyRecord = {
        id: row.c_id!,
        kind: row.c_kind!,
        challenge: row.c_challenge!,
        username: row.c_username,
        user_handle: row.c_user_handle,
        account_id: row.c_account_id,
        session_id: row.c_session_id,
        expires_at: row.c_expires_at!,
      };
      if (row.id === null || row.owner_user_handle === null) return { ceremony, passkey: undefined };
      const { c_id, c_kind, c_challenge, c_username, c_user_handle, c_account_id, c_session_id, c_expires_at, ...passkey } = row;
      return { ceremony, passkey: passkey as PasskeyWithOwner };
    },
    async insert(passkey: PasskeyRecord): Promise<void> {
      await db.insertInto('passkeys').values(passkey).execute();
    },
    async findByCredentialId(credentialId: string): Promise<PasskeyRecord | undefined> {
      return db.selectFrom('passkeys').selectAll().where('credential_id', '=', credentialId).executeTakeFirst();
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
