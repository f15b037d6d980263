import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import { comparisonKeys } from '../rules.js';

/** PostgreSQL runs a migration in a transaction of the migrator's; SQLite's is ours to open. */
export async function inTransaction(db: Kysely<any>, work: (tx: Kysely<any>) => Promise<void>): Promise<void> {
  if (db.isTransaction) return work(db);
  await db.transaction().execute((tx: Transaction<any>) => work(tx));
}

/** Names still held: live accounts and purge tombstones. A released name ('~' || id) holds none. */
export const HELD = (db: Kysely<any>) =>
  db.selectFrom('accounts').select(['id', 'username_canonical', 'purged_at', 'created_at']).where('username_canonical', 'not like', '~%').execute();

/**
 * Live accounts first, oldest first, then tombstones: when two held names now share a key, the
 * account that had its name first keeps it; the other keeps its name but no key of its own.
 */
export function inPriority<T extends { id: string; purged_at: number | null; created_at: number | string }>(rows: T[]): T[] {
  return [...rows].sort(
    (a, b) => Number(a.purged_at !== null) - Number(b.purged_at !== null) || Number(a.created_at) - Number(b.created_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/**
 * Recomputes both comparison keys of every held name with the rules as they are now
 * (docs/decisions/007-usernames.md), in priority order. Of two names that now share a key, the
 * later one's lower-case key becomes `~<id>` (its capitals key null), which no name can equal:
 * the earlier name's key already refuses every look-alike of both.
 */
export async function rekeyHeldNames(tx: Kysely<any>): Promise<void> {
  const rows = inPriority(await HELD(tx));
  // Cleared first: a row's new key may be another row's old one, and the index is checked per statement.
  await tx
    .updateTable('accounts')
    .set({ username_skeleton: sql`'~' || id`, username_skeleton_upper: null })
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
}
