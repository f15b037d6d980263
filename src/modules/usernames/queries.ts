import type { Kysely } from 'kysely';
import type { PlatformTables } from '../../platform/store/schema.js';

/** Uniqueness of names lives in the accounts table's unique indexes; these read what they hold. */
export function usernameQueries(db: Kysely<Pick<PlatformTables, 'accounts'>>) {
  return {
    /** Is the canonical name or its confusable skeleton already held (UTS #39 §4)? */
    async findClash(canonical: string, skeleton: string): Promise<'taken' | 'confusable' | undefined> {
      const row = await db
        .selectFrom('accounts')
        .select(['username_canonical'])
        .where((eb) => eb.or([eb('username_canonical', '=', canonical), eb('username_skeleton', '=', skeleton)]))
        .executeTakeFirst();
      if (!row) return undefined;
      return row.username_canonical === canonical ? 'taken' : 'confusable';
    },
  };
}
