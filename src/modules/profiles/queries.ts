import { sql } from 'kysely';
import type { Kysely, Selectable } from 'kysely';
import { keysetPage } from '../../platform/store/keyset.js';
import { lockingRead } from '../../platform/store/row-locks.js';
import type { Dialect } from '../../platform/store/store.js';
import type { KeysetPosition } from '../../platform/store/keyset.js';
import type { AccountsTable } from '../../platform/store/schema.js';
import type { FieldsTable } from '../fields/tables.js';
import { ownCard, ownCardTag, publicCardByName, publicCardOfAccount } from './statements.js';
import type { ProfilesTable, ProfileExposuresTable } from './tables.js';

interface ProfileTables {
  profiles: ProfilesTable;
  profile_exposures: ProfileExposuresTable;
  fields: FieldsTable;
  accounts: AccountsTable;
}

/** One exposed field as the store returns it: the exposure and the field it names. */
export interface ExposedField {
  field_id: string;
  /** The exposure's own label. */
  label: string | null;
  position: number;
  type: string;
  field_label: string | null;
  country: string | null;
  /** JSON text, as stored. */
  value: string;
  details: string;
}

export type ProfileRecord = Selectable<ProfilesTable>;
export type ProfileRow = Omit<ProfileRecord, 'card_json' | 'card_hash' | 'card_etag'> & { field_count: number };
export type ExposureRecord = Selectable<ProfileExposuresTable>;

export interface ProfileChanges {
  name?: string;
  name_key?: string;
  description?: string | null;
  public?: number;
}

export interface RenderedCardColumns {
  card_json: string;
  card_hash: string;
  card_etag: string;
  card_updated_at: number;
}

export function profileQueries(db: Kysely<ProfileTables>, dialect: Dialect) {
  /** A profile as its owner sees it, with how many fields it shows. */
  const rows = () =>
    db
      .selectFrom('profiles')
      .select([
        'profiles.id', 'profiles.account_id', 'profiles.name', 'profiles.name_key', 'profiles.description', 'profiles.public',
        'profiles.version', 'profiles.created_at', 'profiles.updated_at', 'profiles.card_updated_at',
      ])
      .select((eb) =>
        eb.selectFrom('profile_exposures').select((e) => e.fn.countAll<number>().as('n')).whereRef('profile_exposures.profile_id', '=', 'profiles.id').as('field_count'),
      );
  const withCount = <R extends { field_count: number | string | null }>(row: R) => ({ ...row, field_count: Number(row.field_count ?? 0) });
  return {
    async insert(profile: ProfileRecord): Promise<void> {
      await db.insertInto('profiles').values(profile).execute();
    },
    async find(accountId: string, id: string): Promise<ProfileRow | undefined> {
      const row = await rows().where('profiles.id', '=', id).where('profiles.account_id', '=', accountId).executeTakeFirst();
      return row && withCount(row);
    },
    async list(accountId: string, after: KeysetPosition | undefined, limit: number): Promise<ProfileRow[]> {
      return (await keysetPage(rows().where('profiles.account_id', '=', accountId), after, limit, { table: 'profiles' }).execute()).map(withCount);
    },
    async count(accountId: string): Promise<number> {
      const row = await db.selectFrom('profiles').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /** Another profile of the account with this name (ignoring case), or the public one. */
    async findClash(accountId: string, clash: { nameKey?: string; public?: boolean }, exceptId?: string): Promise<{ id: string; name_key: string; public: number } | undefined> {
      let query = db.selectFrom('profiles').select(['id', 'name_key', 'public']).where('account_id', '=', accountId);
      if (exceptId) query = query.where('id', '!=', exceptId);
      query = query.where((eb) => {
        const either = [];
        if (clash.nameKey !== undefined) either.push(eb('name_key', '=', clash.nameKey));
        if (clash.public) either.push(eb('public', '=', 1));
        return eb.or(either);
      });
      return query.executeTakeFirst();
    },
    /** Compare-and-swap on version (If-Match). */
    async update(accountId: string, id: string, expectedVersion: number, changes: ProfileChanges, at: number): Promise<boolean> {
      const result = await db
        .updateTable('profiles')
        .set({ ...changes, version: expectedVersion + 1, updated_at: at })
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .where('version', '=', expectedVersion)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    /**
     * A change to what the profile shows (its exposures): updated_at moves, the version does not.
     * Exposures are resources of their own; a rename after a reorder needs no fresh read.
     */
    async touch(accountId: string, id: string, at: number): Promise<void> {
      await db.updateTable('profiles').set({ updated_at: at }).where('id', '=', id).where('account_id', '=', accountId).execute();
    },
    /** The purge: every profile of the account with its exposures. */
    async removeAll(accountId: string): Promise<void> {
      await db.deleteFrom('profile_exposures').where('account_id', '=', accountId).execute();
      await db.deleteFrom('profiles').where('account_id', '=', accountId).execute();
    },
    /** A profile's rendered card (the export shows each profile with what its audience sees). */
    async cardJson(accountId: string, id: string): Promise<string | undefined> {
      return (await db.selectFrom('profiles').select('card_json').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst())?.card_json;
    },
    /**
     * The account's profile, kept until the transaction ends (row lock, PostgreSQL): `share` by a
     * grant naming it (an approval, a move, a share link), so its delete cannot meet it; `update`
     * by its delete, so a grant that holds it finishes first and the delete moves what it granted.
     */
    async lock(accountId: string, id: string, strength: 'share' | 'update'): Promise<{ version: number } | undefined> {
      return lockingRead(db.selectFrom('profiles').select('version').where('id', '=', id).where('account_id', '=', accountId), dialect, strength).executeTakeFirst();
    },
    async remove(accountId: string, id: string, expectedVersion: number): Promise<boolean> {
      const result = await db.deleteFrom('profiles').where('id', '=', id).where('account_id', '=', accountId).where('version', '=', expectedVersion).executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },

    /** Every profile's card state, to re-render them after a change. */
    async cardStates(accountId: string): Promise<Array<{ id: string; card_json: string; card_hash: string; card_updated_at: number }>> {
      return db.selectFrom('profiles').select(['id', 'card_json', 'card_hash', 'card_updated_at']).where('account_id', '=', accountId).execute();
    },
    /** A profile's card and whose it is (a delivery to another region reads it, decision 352). */
    async cardById(id: string): Promise<(RenderedCardColumns & { account_id: string }) | undefined> {
      return db.selectFrom('profiles').select(['account_id', 'card_json', 'card_hash', 'card_etag', 'card_updated_at']).where('id', '=', id).executeTakeFirst();
    },
    /** The profiles of an account but `keep` (a stand-in's copies no follower here sees any more). */
    async removeAllBut(accountId: string, keep: readonly string[]): Promise<number> {
      const result = await db
        .deleteFrom('profiles')
        .where('account_id', '=', accountId)
        .$if(keep.length > 0, (q) => q.where('id', 'not in', keep))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async setCard(id: string, card: RenderedCardColumns): Promise<void> {
      await db.updateTable('profiles').set(card).where('id', '=', id).execute();
    },
    /** The exposed fields of every profile of an account, joined to the fields they name, in one read. */
    async exposedFields(accountId: string): Promise<Array<ExposedField & { profile_id: string }>> {
      return db
        .selectFrom('profile_exposures')
        .innerJoin('fields', (join) => join.onRef('fields.id', '=', 'profile_exposures.field_id').onRef('fields.account_id', '=', 'profile_exposures.account_id'))
        .select([
          'profile_exposures.profile_id', 'profile_exposures.field_id', 'profile_exposures.label', 'profile_exposures.position',
          'fields.type', 'fields.label as field_label', 'fields.country', 'fields.value', 'fields.details',
        ])
        .where('profile_exposures.account_id', '=', accountId)
        .execute();
    },
    /** The rendered card of one profile of the account (its entity tag only, for a conditional GET): statements.ts. */
    card: (accountId: string, id: string) => ownCard.first(db, { accountId, id }),
    cardTag: (accountId: string, id: string) => ownCardTag.first(db, { accountId, id }),
    /** The public profile's card of the account holding this canonical username (statements.ts: the public card's audience rule). */
    publicCard: (canonical: string) => publicCardByName.first(db, { canonical }),
    /** The same card found by its owner's id (a photo's owner: does the public card show it?). */
    publicCardOf: (accountId: string) => publicCardOfAccount.first(db, { accountId }),
  };
}

export function exposureQueries(db: Kysely<ProfileTables>) {
  return {
    /** In the profile's order. */
    async list(profileId: string): Promise<ExposureRecord[]> {
      return db.selectFrom('profile_exposures').selectAll().where('profile_id', '=', profileId).orderBy('position').orderBy('field_id').execute();
    },
    async insert(exposure: ExposureRecord): Promise<void> {
      await db.insertInto('profile_exposures').values(exposure).execute();
    },
    async setLabel(profileId: string, fieldId: string, label: string | null): Promise<void> {
      await db.updateTable('profile_exposures').set({ label }).where('profile_id', '=', profileId).where('field_id', '=', fieldId).execute();
    },
    async remove(profileId: string, fieldId: string): Promise<boolean> {
      const result = await db.deleteFrom('profile_exposures').where('profile_id', '=', profileId).where('field_id', '=', fieldId).executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
    /** Positions 0…n-1 in the given order, in one statement. */
    async reorder(profileId: string, fieldIds: readonly string[]): Promise<void> {
      if (fieldIds.length === 0) return;
      const cases = sql.join(fieldIds.map((id, position) => sql`when ${id} then ${sql.lit(position)}`), sql` `);
      await db
        .updateTable('profile_exposures')
        .set({ position: sql<number>`case field_id ${cases} end` })
        .where('profile_id', '=', profileId)
        .where('field_id', 'in', fieldIds)
        .execute();
    },
  };
}

export type ProfileQueries = ReturnType<typeof profileQueries>;
export type ExposureQueries = ReturnType<typeof exposureQueries>;
