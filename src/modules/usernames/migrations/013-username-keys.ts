import { sql } from 'kysely';
import type { Kysely, Migration, Transaction } from 'kysely';
import { comparisonKeys, mapConfusables } from '../rules.js';

/**
 * The key before 013, which the down migration restores: the plain UTS #39 §4 skeleton, NFD ->
 * drop Default_Ignorable_Code_Point -> map each code point through confusables -> lower-case -> NFD.
 */
export function confusableSkeleton(value: string): string {
  // Names are compared case-insensitively, but some prototypes are upper-case ('0' -> 'O'):
  // lower-case the mapped string so "g00gle" meets "google" (UTS #39 §4 on case-insensitive use).
  return mapConfusables(value).toLowerCase().normalize('NFD');
}

/** PostgreSQL runs a migration in a transaction of the migrator's; SQLite's is ours to open. */
async function inTransaction(db: Kysely<any>, work: (tx: Kysely<any>) => Promise<void>): Promise<void> {
  if (db.isTransaction) return work(db);
  await db.transaction().execute((tx: Transaction<any>) => work(tx));
}

/** Names still held: live accounts and purge tombstones. A released name ('~' || id) holds none. */
const HELD = (db: Kysely<any>) =>
  db.selectFrom('accounts').select(['id', 'username_canonical', 'purged_at', 'created_at']).where('username_canonical', 'not like', '~%').execute();

/**
 * Live accounts first, oldest first, then tombstones: when two held names now share a key, the
 * account that had its name first keeps it; the other keeps its name but no key of its own.
 */
function inPriority<T extends { id: string; purged_at: number | null; created_at: number | string }>(rows: T[]): T[] {
  return [...rows].sort(
    (a, b) => Number(a.purged_at !== null) - Number(b.purged_at !== null) || Number(a.created_at) - Number(b.created_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
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
      const rows = inPriority(await HELD(tx));
      // Cleared first: a row's new key may be another row's old one, and the index is checked per statement.
      await tx
        .updateTable('accounts')
        .set({ username: sql`username_canonical`, username_skeleton: sql`'~' || id` })
        .where('username_canonical', 'not like', '~%')
        .execute();
      const lower = new Set<string>();
      const upper = new Set<string>();
      for (const row of rows) {
        const keys = comparisonKeys(row.username_canonical as string);
        const set: Record<string, string> = {};
        if (!lower.has(keys.skeleton)) set.username_skeleton = keys.skeleton;
        if (!upper.has(keys.skeletonUpper)) set.username_skeleton_upper = keys.skeletonUpper;
        lower.add(keys.skeleton);
        upper.add(keys.skeletonUpper);
        if (Object.keys(set).length > 0) await tx.updateTable('accounts').set(set).where('id', '=', row.id).execute();
      }
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
