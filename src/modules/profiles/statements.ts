import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { statement } from '../../platform/store/statement.js';
import type { Param } from '../../platform/store/statement.js';
import type { AccountsTable } from '../../platform/store/schema.js';
import type { ProfilesTable } from './tables.js';

// The hot reads of profiles (a card, its entity tag, the public card), each beside the rule it
// mirrors, built once per process (platform/store/statement.ts). test/store/fast-paths.test.ts
// runs each against a plain Kysely twin on random data, on both backends.

interface CardTables {
  profiles: ProfilesTable;
  accounts: AccountsTable;
}

/**
 * The public card's audience rule (PRODUCT §6), the one place it is written: anyone may read the
 * public profile of the account holding this canonical username (or this id) while that account
 * is neither deleted (PRODUCT §8) nor locked (decision 090); otherwise there is no row, and the
 * route answers the same 404 as for nobody. `public = 1` is a literal so the planner can use the
 * partial index of public profiles. (A contact's card has its own rule, contactAccessRule in the
 * contacts' queries.)
 */
function publicCardAudience(db: Kysely<CardTables>, by: 'accounts.username_canonical' | 'accounts.id', who: string) {
  return db
    .selectFrom('accounts')
    .innerJoin('profiles', (join) => join.onRef('profiles.account_id', '=', 'accounts.id').on('profiles.public', '=', sql.lit(1)))
    .where(by, '=', who)
    .where('accounts.deleted_at', 'is', null)
    .where('accounts.locked_at', 'is', null);
}

/** The public card by its owner's canonical username: one indexed read each (the name's unique index, the partial index of public profiles). */
export const publicCardByName = statement('public card by name', (db: Kysely<CardTables>, p: Param<{ canonical: string }>) =>
  publicCardAudience(db, 'accounts.username_canonical', p('canonical')).select(['accounts.id as account_id', 'profiles.card_json', 'profiles.card_etag']),
);

/** The same card found by its owner's id (a photo's owner: does the public card show it?). */
export const publicCardOfAccount = statement('public card of account', (db: Kysely<CardTables>, p: Param<{ accountId: string }>) =>
  publicCardAudience(db, 'accounts.id', p('accountId')).select(['profiles.card_json']),
);

/** The rendered card of one profile, its owner's only (PRODUCT §3: another account's profile id answers like an unknown one). */
export const ownCard = statement('own card', (db: Kysely<CardTables>, p: Param<{ accountId: string; id: string }>) =>
  db.selectFrom('profiles').select(['card_json', 'card_etag']).where('id', '=', p('id')).where('account_id', '=', p('accountId')),
);

/** Its entity tag only, for a conditional GET. */
export const ownCardTag = statement('own card tag', (db: Kysely<CardTables>, p: Param<{ accountId: string; id: string }>) =>
  db.selectFrom('profiles').select(['card_etag']).where('id', '=', p('id')).where('account_id', '=', p('accountId')),
);
