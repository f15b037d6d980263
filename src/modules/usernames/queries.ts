import type { Kysely } from 'kysely';
import type { PlatformTables } from '../../platform/store/schema.js';

/**
 * A valid name: its canonical form (stored, shown and unique) and the comparison keys that decide
 * which names look alike (docs/decisions/007-usernames.md, "Look-alikes").
 */
export interface UsernameKeys {
  canonical: string;
  /** The lower-case key of the canonical form: stored in `username_skeleton`, unique. */
  skeleton: string;
  /** The capitals key, how the name looks written in capitals: `username_skeleton_upper`, unique. */
  skeletonUpper: string;
  /** The lower-case key of the name as typed, capital I read as l: compared, never stored. */
  typedSkeleton: string;
}

/** Uniqueness of names lives in the accounts table's unique indexes; these read what they hold. */
export function usernameQueries(db: Kysely<Pick<PlatformTables, 'accounts'>>) {
  return {
    /**
     * Is the canonical name held ('taken'), or does a held name look like it ('confusable')? A
     * name clashes on its lower-case key (the canonical form's or the typed form's) with another's
     * lower-case key, or on its capitals key with another's capitals key (docs/decisions/007).
     * Each column has its unique index, so this is a few index lookups.
     */
    async findClash(keys: UsernameKeys): Promise<'taken' | 'confusable' | undefined> {
      const lowerKeys = keys.typedSkeleton === keys.skeleton ? [keys.skeleton] : [keys.skeleton, keys.typedSkeleton];
      // At most one row per key matches: the exact name, if held, must win over a look-alike.
      const rows = await db
        .selectFrom('accounts')
        .select(['username_canonical'])
        .where((eb) =>
          eb.or([
            eb('username_canonical', '=', keys.canonical),
            eb('username_skeleton', 'in', lowerKeys),
            eb('username_skeleton_upper', '=', keys.skeletonUpper),
          ]),
        )
        .limit(4)
        .execute();
      if (rows.length === 0) return undefined;
      return rows.some((row) => row.username_canonical === keys.canonical) ? 'taken' : 'confusable';
    },
  };
}
