import type { Kysely, Selectable } from 'kysely';
import type { Database, PasskeysTable } from '../../platform/store/schema.js';

export type PasskeyRecord = Selectable<PasskeysTable>;

export function passkeyQueries(db: Kysely<Database>) {
  return {
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
      const result = await db
        .updateTable('passkeys')
        .set({ counter: use.counter, backed_up: use.backed_up, last_used_at: use.at, dpop_jkt: use.dpop_jkt })
        .where('id', '=', id)
        .where('counter', '=', expectedCounter)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
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
    async list(accountId: string, after: { created_at: number; id: string } | undefined, limit: number): Promise<PasskeyRecord[]> {
      let query = db.selectFrom('passkeys').selectAll().where('account_id', '=', accountId);
      if (after) {
        query = query.where((eb) =>
          eb.or([eb('created_at', '>', after.created_at), eb.and([eb('created_at', '=', after.created_at), eb('id', '>', after.id)])]),
        );
      }
      return query.orderBy('created_at').orderBy('id').limit(limit).execute();
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
  };
}
