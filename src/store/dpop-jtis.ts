import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export function dpopJtiQueries(db: Kysely<Database>) {
  return {
    /** True when the jti is new; false when it was seen inside its window (RFC 9449 §11.1). */
    async remember(jtiHash: string, expiresAt: number): Promise<boolean> {
      const result = await db
        .insertInto('dpop_jtis')
        .values({ jti_hash: jtiHash, expires_at: expiresAt })
        .onConflict((oc) => oc.column('jti_hash').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
    },
  };
}
