import { sql } from 'kysely';
import type { Kysely, Migration, Transaction } from 'kysely';
import { mapConfusables } from '../rules.js';
import { HELD, inPriority, inTransaction, rekeyHeldNames } from './rekey.js';

/**
 * The key before 013, which the down migration restores: the plain UTS #39 §4 skeleton, NFD ->
 * drop Default_Ignorable_Code_Point -> map each code point through confusables -> lower-case -> NFD.
 */
export function confusableSkeleton(value: string): string {
  // Names are compared case-insensitively, but some prototypes are upper-case ('0' -> 'O'):
  // lower-case the mapped string so "g00gle" meets "google" (UTS #39 §4 on case-insensitive use).
  return mapConfusables(value).toLowerCase().normalize('NFD');
}

/**
 * Look-alike usernames (docs/decisions/007-usernames.md, "Look-alikes"). Every held name gets the
 * new lower-case key (separators and diacritics folded) and the new capitals key, and is shown in
 * its canonical form. No account loses its name: the canonical form, which logins, lookups and
 * uniqueness use, is untouched. Of two existing names that now share a key, the later one's key
 * becomes `~<id>` (or null for the capitals key), which no name can equal: the earlier name's key
 * already refuses every look-alike of both.
 */
export const usernameKeys: Migration = {
  async up(db: Kysely<any>) {
    await inTransaction(db, async (tx) => {
      await tx.schema.alterTable('accounts').addColumn('username_skeleton_upper', 'text').execute();
      await tx.updateTable('accounts').set({ username: sql`username_canonical` }).where('username_canonical', 'not like', '~%').execute();
      await rekeyHeldNames(tx);
      await tx.schema.createIndex('accounts_username_skeleton_upper_uq').on('accounts').column('username_skeleton_upper').unique().execute();
    });
  },
  /** Back to the plain UTS #39 skeleton. The names stay in their canonical form: the typed form is gone. */
  async down(db: Kysely<any>) {
    await inTransaction(db, async (tx) => {
      await tx.schema.dropIndex('accounts_username_skeleton_upper_uq').execute();
      await tx.schema.alterTable('accounts').dropColumn('username_skeleton_upper').execute();
      const rows = inPriority(await HELD(tx));
      await tx.updateTable('accounts').set({ username_skeleton: sql`'~' || id` }).where('username_canonical', 'not like', '~%').execute();
      const seen = new Set<string>();
      for (const row of rows) {
        const skeleton = confusableSkeleton(row.username_canonical as string);
        if (seen.has(skeleton)) continue;
        seen.add(skeleton);
        await tx.updateTable('accounts').set({ username_skeleton: skeleton }).where('id', '=', row.id).execute();
      }
    });
  },
};
