import type { Kysely, Selectable } from 'kysely';
import type { Database, TotpAuthenticatorsTable } from '../../platform/store/schema.js';

export type TotpRecord = Selectable<TotpAuthenticatorsTable>;

export function totpQueries(db: Kysely<Database>) {
  return {
    async insert(record: TotpRecord): Promise<void> {
      await db.insertInto('totp_authenticators').values(record).execute();
    },
    async find(accountId: string, id: string): Promise<TotpRecord | undefined> {
      return db.selectFrom('totp_authenticators').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    },
    async list(accountId: string): Promise<TotpRecord[]> {
      return db.selectFrom('totp_authenticators').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
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
  };
}
