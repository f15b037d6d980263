import { sql } from 'kysely';
import type { Kysely, RawBuilder, Selectable, SelectQueryBuilder, SqlBool } from 'kysely';
import { keysetPage } from '../../platform/store/keyset.js';
import { statement } from '../../platform/store/statement.js';
import type { Param } from '../../platform/store/statement.js';
import type { KeysetPosition } from '../../platform/store/keyset.js';
import type { AccountsTable } from '../../platform/store/schema.js';
import type { ProfilesTable } from '../profiles/tables.js';
import { ACTIVE_STATUS, ENDED_STATUSES, LIVE_PAIR_STATUSES as LIVE_TO_SUBSCRIBER } from './tables.js';
import type { SubscriptionsTable, BlocksTable, AnnotationsTable, AnnotationLabelsTable } from './tables.js';

/**
 * The subscription predicates (tables.ts names each once), as the statements below test them.
 * `isActive`: the subscriber receives the card of the subscription's profile now, a parameter
 * like any value. The audience rule and the live-pair probes write the same constants as
 * literals: the rule's CASE selects text, and SQLite uses a partial index only when a query
 * repeats its condition literally (predicates.test.ts holds the literals to the constants and
 * to the index migration 023 made).
 */
export const ACTIVE_LITERAL = sql.lit(ACTIVE_STATUS);
/** The live-pair index's condition as SQL literals, in its order. */
export const LIVE_PAIR = sql<readonly string[]>`(${sql.join(LIVE_TO_SUBSCRIBER.map((status) => sql.lit(status)))})`;
const isActive = (table?: 'subscriptions') => sql<SqlBool>`${sql.ref(table ? `${table}.status` : 'status')} = ${ACTIVE_STATUS}`;
/** In the live pair (literals): one probe of the live-pair index per owner. */
const inLivePair = (column: string) => sql<SqlBool>`${sql.ref(column)} in ${LIVE_PAIR}`;
/**
 * "The subscriber receives this card now": its subscription to the row's owner is active on the
 * row's profile (two column references), probing the live-pair index: `receivedContact` asks it
 * of rows; receivedBy below is the same of the subscriber's own rows.
 */
const receivesCard = (subscriberId: string, ownerColumn: string, profileColumn: string) =>
  sql`from subscriptions received where received.owner_id = ${sql.ref(ownerColumn)} and received.subscriber_id = ${subscriberId} and received.status in ${LIVE_PAIR} and received.status = ${ACTIVE_LITERAL} and received.profile_id = ${sql.ref(profileColumn)}`;

interface ContactTables {
  subscriptions: SubscriptionsTable;
  blocks: BlocksTable;
  annotations: AnnotationsTable;
  annotation_labels: AnnotationLabelsTable;
  accounts: AccountsTable;
  profiles: ProfilesTable;
}

export type SubscriptionRecord = Selectable<SubscriptionsTable>;
export type AnnotationRecord = Selectable<AnnotationsTable>;

/**
 * A subscription with the other side's name, as either side lists it; the subscriber's side
 * with the audience rule's answer (`access`, below) too.
 */
export type SubscriptionRow = SubscriptionRecord & {
  other_username: string;
  other_display_name: string | null;
  /** The other person's region: this one's, or another's for a person from elsewhere (PRODUCT §10). */
  other_region: string;
  other_deleted_at: number | null;
  other_locked_at: number | null;
  profile_card_updated_at: number | null;
  access?: ContactAccess;
};

/**
 * What a subscriber may see of one of its contacts (PRODUCT §4, §7: the card, its vCards, the
 * keys), as the audience rule below decides it from the subscription and its owner's account:
 * - `hidden`: the subscriber removed it from its list; it answers like no contact at all (404)
 * - `not_active`: pending, denied, revoked or ended: nothing to see (403)
 * - `owner_deleted`: active, but the owner's account is deleted and may come back (410)
 * - `owner_locked`: active, but the owner's account is locked (decision 090; 410)
 * - `shown`: the card and keys are theirs to read
 */
export type ContactAccess = 'hidden' | 'not_active' | 'owner_deleted' | 'owner_locked' | 'shown';

/**
 * The audience rule of a contact (ARCHITECTURE "audience is data"), over `subscriptions` joined to
 * the owner's `accounts` row: the one place it is written. Every read of what a contact shows
 * selects it (contactAccess, the card, every shown card); the contacts service turns it into the
 * refusal. (The public card's rule is publicCardAudience, in the profiles' queries.)
 */
const contactAccessRule = sql<ContactAccess>`case
  when ${sql.ref('subscriptions.hidden_at')} is not null then 'hidden'
  when ${sql.ref('subscriptions.status')} <> ${ACTIVE_LITERAL} then 'not_active'
  when ${sql.ref('accounts.deleted_at')} is not null then 'owner_deleted'
  when ${sql.ref('accounts.locked_at')} is not null then 'owner_locked'
  else 'shown' end`;

/** A subscriber's contact with the audience rule's answer for it. */
export interface ContactAccessRow {
  owner_id: string;
  access: ContactAccess;
}

/** A contact's card as its profile renders it, with what serving it to the subscriber needs. */
export interface ContactCardRow extends ContactAccessRow {
  card_since: number | null;
  card_changes: string | null;
  card_json: string | null;
  card_etag: string | null;
  card_updated_at: number | null;
}

/** The subscriber's contacts with the audience rule's answer for each (its owner's account joined). */
function contactsOfSubscriber(db: Kysely<ContactTables>, subscriberId: string) {
  return db
    .selectFrom('subscriptions')
    .innerJoin('accounts', 'accounts.id', 'subscriptions.owner_id')
    .select(['subscriptions.owner_id', contactAccessRule.as('access')])
    .where('subscriptions.subscriber_id', '=', subscriberId);
}
/** The same with the card of the profile each shows. */
function cardsOfSubscriber(db: Kysely<ContactTables>, subscriberId: string) {
  return contactsOfSubscriber(db, subscriberId)
    .leftJoin('profiles', 'profiles.id', 'subscriptions.profile_id')
    .select(['subscriptions.card_since', 'subscriptions.card_changes', 'profiles.card_etag', 'profiles.card_updated_at']);
}

// The hot reads of a contact's card (contactAccessRule above, the rule they mirror), built once
// per process (platform/store/statement.ts); test/store/fast-paths.test.ts holds their plain twins.
export const contactAccessStatement = statement('contact access', (db: Kysely<ContactTables>, p: Param<{ subscriberId: string; id: string }>) =>
  contactsOfSubscriber(db, p('subscriberId')).where('subscriptions.id', '=', p('id')),
);
export const contactCardStatement = statement('contact card', (db: Kysely<ContactTables>, p: Param<{ subscriberId: string; id: string }>) =>
  cardsOfSubscriber(db, p('subscriberId')).select('profiles.card_json').where('subscriptions.id', '=', p('id')),
);
export const contactCardTagStatement = statement('contact card tag', (db: Kysely<ContactTables>, p: Param<{ subscriberId: string; id: string }>) =>
  cardsOfSubscriber(db, p('subscriberId')).where('subscriptions.id', '=', p('id')),
);

export function subscriptionQueries(db: Kysely<ContactTables>) {
  /** Subscriptions joined to the account on the other side (`side` is the caller's). */
  const rows = (side: 'owner' | 'subscriber') =>
    db
      .selectFrom('subscriptions')
      .innerJoin('accounts', 'accounts.id', side === 'owner' ? 'subscriptions.subscriber_id' : 'subscriptions.owner_id')
      .leftJoin('profiles', 'profiles.id', 'subscriptions.profile_id')
      .selectAll('subscriptions')
      .select(['accounts.username as other_username', 'accounts.display_name as other_display_name', 'accounts.region as other_region', 'accounts.deleted_at as other_deleted_at', 'accounts.locked_at as other_locked_at', 'profiles.card_updated_at as profile_card_updated_at'])
      // The accounts row joined is the owner's on the subscriber's side: the rule reads it.
      .$if(side === 'subscriber', (query) => query.select(contactAccessRule.as('access')));

  /** A side's list, narrowed by status and (on the subscriber's side) by one of its own labels. */
  const listed = (side: 'owner' | 'subscriber', accountId: string, filter: { statuses: readonly string[]; label?: string }) => {
    let query = rows(side).where(side === 'owner' ? 'subscriptions.owner_id' : 'subscriptions.subscriber_id', '=', accountId);
    if (side === 'subscriber') query = query.where('subscriptions.hidden_at', 'is', null);
    query = query.where('subscriptions.status', 'in', filter.statuses);
    if (filter.label !== undefined) {
      const labelKey = filter.label;
      query = query.where((eb) =>
        eb.exists(
          eb
            .selectFrom('annotation_labels')
            .select('annotation_labels.subscription_id')
            .whereRef('annotation_labels.subscription_id', '=', 'subscriptions.id')
            .where('annotation_labels.author_id', '=', accountId)
            .where('annotation_labels.label_key', '=', labelKey),
        ),
      );
    }
    return query;
  };

  const contactsOf = (subscriberId: string) => contactsOfSubscriber(db, subscriberId);
  const cardsOf = (subscriberId: string) => cardsOfSubscriber(db, subscriberId);
  /** The subscriber's active subscriptions: the cards it receives now (receivesCard's rule, from its own rows). */
  const receivedBy = (subscriberId: string) => db.selectFrom('subscriptions').where('subscriptions.subscriber_id', '=', subscriberId).where(isActive('subscriptions'));

  return {
    async insert(row: SubscriptionRecord): Promise<void> {
      await db.insertInto('subscriptions').values(row).execute();
    },
    /** One subscription of the caller's side; `statuses`: only in one of these (what that side may see). */
    async find(side: 'owner' | 'subscriber', accountId: string, id: string, statuses?: readonly string[]): Promise<SubscriptionRow | undefined> {
      return rows(side)
        .where('subscriptions.id', '=', id)
        .where(side === 'owner' ? 'subscriptions.owner_id' : 'subscriptions.subscriber_id', '=', accountId)
        .$if(statuses !== undefined, (q) => q.where('subscriptions.status', 'in', statuses!))
        .executeTakeFirst();
    },
    async list(
      side: 'owner' | 'subscriber',
      accountId: string,
      filter: { statuses: readonly string[]; label?: string },
      after: KeysetPosition | undefined,
      limit: number,
      withCards = false,
    ): Promise<SubscriptionRow[]> {
      // With the card each shows (GET /contacts?include=card): the subscriber's side only.
      const query = listed(side, accountId, filter).$if(withCards, (q) => q.select(['profiles.card_json', 'profiles.card_etag']));
      return keysetPage(query, after, limit, { table: 'subscriptions' }).execute();
    },
    /**
     * Every contact of a subscriber that the list shows (status and label as for list), with the
     * card each shows: what a search looks through. One index range (subscriptions_subscriber_idx),
     * bounded by the contact limit.
     */
    async findable(subscriberId: string, filter: { statuses: readonly string[]; label?: string }): Promise<Array<SubscriptionRow & { card_json: string | null; card_etag: string | null }>> {
      return listed('subscriber', subscriberId, filter).select(['profiles.card_json', 'profiles.card_etag']).execute();
    },
    /** The live subscription between two accounts (in one of `live`), if any. */
    async findLive(ownerId: string, subscriberId: string, live: readonly string[]): Promise<SubscriptionRecord | undefined> {
      return db.selectFrom('subscriptions').selectAll().where('owner_id', '=', ownerId).where('subscriber_id', '=', subscriberId).where('status', 'in', live).executeTakeFirst();
    },
    /** Requests a subscriber made since a time (the daily limit). */
    async countRequestsSince(subscriberId: string, since: number): Promise<{ count: number; oldest: number | null }> {
      const row = await db
        .selectFrom('subscriptions')
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('created_at').as('oldest')])
        .where('subscriber_id', '=', subscriberId)
        .where('created_at', '>', since)
        .executeTakeFirstOrThrow();
      return { count: Number(row.n), oldest: row.oldest === null ? null : Number(row.oldest) };
    },
    async countLive(subscriberId: string, live: readonly string[]): Promise<number> {
      const row = await db.selectFrom('subscriptions').select((eb) => eb.fn.countAll<number>().as('n')).where('subscriber_id', '=', subscriberId).where('status', 'in', live).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /**
     * A transition as one conditional update (ARCHITECTURE: state machines as tables): the row
     * moves only from one of `from`, so of two racing transitions exactly one wins.
     */
    async transition(
      side: 'owner' | 'subscriber',
      accountId: string,
      id: string,
      // States as the table (states.ts) names them; queries sit below it and take plain strings.
      from: readonly string[],
      to: { status: string; profile_id?: string | null; card_since?: number | null; card_changes?: string | null; hidden_at?: number | null },
      at: number,
      /** A change the subscriber must not hear of (silent refusals): counted apart too. */
      silent = false,
    ): Promise<SubscriptionRecord | undefined> {
      return db
        .updateTable('subscriptions')
        .set((eb) => ({ ...to, version: eb('version', '+', 1), updated_at: at, ...(silent ? { silent_changes: eb('silent_changes', '+', 1) } : {}) }))
        .where('id', '=', id)
        .where(side === 'owner' ? 'owner_id' : 'subscriber_id', '=', accountId)
        .where('status', 'in', from)
        .returningAll()
        .executeTakeFirst();
    },
    /**
     * Ends (`to`) at most `limit` subscriptions in `from` made at or before `before`, oldest first;
     * answers who they were between. Each row moves once, whichever node runs it.
     */
    async endWaiting(from: string, before: number, to: string, at: number, limit: number): Promise<Array<{ id: string; owner_id: string; subscriber_id: string }>> {
      const due = db.selectFrom('subscriptions').select('id').where('status', '=', from).where('created_at', '<=', before).orderBy('created_at').limit(limit);
      return db
        .updateTable('subscriptions')
        .set((eb) => ({ status: to, updated_at: at, version: eb('version', '+', 1) }))
        .where('id', 'in', due)
        .where('status', '=', from)
        .returning(['id', 'owner_id', 'subscriber_id'])
        .execute();
    },
    /** A blocked person's requests to an owner that the owner never saw (`from`) become `to`: the block is lifted. */
    async letThrough(ownerId: string, subscriberId: string, from: string, to: string, at: number): Promise<number> {
      const result = await db
        .updateTable('subscriptions')
        .set((eb) => ({ status: to, updated_at: at, version: eb('version', '+', 1), silent_changes: eb('silent_changes', '+', 1) }))
        .where('owner_id', '=', ownerId)
        .where('subscriber_id', '=', subscriberId)
        .where('status', '=', from)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    /** The subscriber removes an ended contact from their list. */
    async hide(subscriberId: string, id: string, at: number): Promise<boolean> {
      const result = await db.updateTable('subscriptions').set({ hidden_at: at }).where('id', '=', id).where('subscriber_id', '=', subscriberId).where('status', 'in', ENDED_STATUSES).executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /**
     * The active subscribers of some of an owner's profiles (one index range), or of all of them,
     * as fan-out targets: the subscriber and its contact id.
     */
    activeSubscribersOf(ownerId: string, profileIds?: readonly string[]): SelectQueryBuilder<any, any, { account_id: string; param: string }> {
      return db
        .selectFrom('subscriptions')
        .select(['subscriptions.subscriber_id as account_id', 'subscriptions.id as param'])
        .where('subscriptions.owner_id', '=', ownerId)
        .$if(profileIds !== undefined, (q) => q.where('subscriptions.profile_id', 'in', profileIds!))
        .where(isActive('subscriptions')) as unknown as SelectQueryBuilder<any, any, { account_id: string; param: string }>;
    },
    /** Everyone with a subscription in one of `statuses` to the owner, as fan-out targets of a kind without a placeholder. */
    subscribersOf(ownerId: string, statuses: readonly string[]): SelectQueryBuilder<any, any, { account_id: string; param: string }> {
      return db
        .selectFrom('subscriptions')
        .select(['subscriptions.subscriber_id as account_id', sql<string>`''`.as('param')])
        .where('subscriptions.owner_id', '=', ownerId)
        .where('subscriptions.status', 'in', statuses) as unknown as SelectQueryBuilder<any, any, { account_id: string; param: string }>;
    },
    /** The owners of this subscriber's subscriptions in one of `statuses`, as fan-out targets (no placeholder). */
    ownersOf(subscriberId: string, statuses: readonly string[]): SelectQueryBuilder<any, any, { account_id: string; param: string }> {
      return db
        .selectFrom('subscriptions')
        .select(['subscriptions.owner_id as account_id', sql<string>`''`.as('param')])
        .where('subscriptions.subscriber_id', '=', subscriberId)
        .where('subscriptions.status', 'in', statuses) as unknown as SelectQueryBuilder<any, any, { account_id: string; param: string }>;
    },
    /**
     * The purge (PRODUCT §8): every live subscription from or to the account ends, and the
     * messages it wrote go. The rows stay, so the other side keeps its history (and its notes).
     */
    async endAllOf(accountId: string, at: number, live: readonly string[]): Promise<void> {
      await db
        .updateTable('subscriptions')
        .set((eb) => ({ status: 'ended', updated_at: at, version: eb('version', '+', 1) }))
        .where((eb) => eb.or([eb('owner_id', '=', accountId), eb('subscriber_id', '=', accountId)]))
        .where('status', 'in', live)
        .execute();
      await db.updateTable('subscriptions').set({ message: null }).where('subscriber_id', '=', accountId).where('message', 'is not', null).execute();
    },
    /** Every subscription the account made, hidden ones too, with the card each shows now (the export). */
    async allAsSubscriber(subscriberId: string, after: KeysetPosition | undefined, limit: number): Promise<Array<SubscriptionRow & { card_json: string | null }>> {
      const query = rows('subscriber').select('profiles.card_json').where('subscriptions.subscriber_id', '=', subscriberId);
      return keysetPage(query, after, limit, { table: 'subscriptions' }).execute();
    },
    /** Active subscribers per profile. */
    async countsByProfile(ownerId: string, profileIds: readonly string[]): Promise<Map<string, number>> {
      const rows = await db
        .selectFrom('subscriptions')
        .select(['profile_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('owner_id', '=', ownerId)
        .where('profile_id', 'in', profileIds)
        .where(isActive())
        .groupBy('profile_id')
        .execute();
      return new Map(rows.map((row) => [row.profile_id as string, Number(row.n)]));
    },
    /** Moves every active subscriber of one profile to another, with what changed for them; returns how many. */
    async moveAll(ownerId: string, fromProfile: string, toProfile: string, at: number, cardChanges: string): Promise<number> {
      const result = await db
        .updateTable('subscriptions')
        .set((eb) => ({ profile_id: toProfile, card_since: at, card_changes: cardChanges, updated_at: at, version: eb('version', '+', 1) }))
        .where('owner_id', '=', ownerId)
        .where('profile_id', '=', fromProfile)
        .where(isActive())
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    /** A profile is going: requests suggesting it suggest `toProfile` (its links go there too), or nothing. */
    async moveSuggestions(ownerId: string, fromProfile: string, toProfile: string | null): Promise<void> {
      await db.updateTable('subscriptions').set({ suggested_profile_id: toProfile }).where('owner_id', '=', ownerId).where('suggested_profile_id', '=', fromProfile).execute();
    },
    async countActive(ownerId: string, profileId: string): Promise<number> {
      const row = await db.selectFrom('subscriptions').select((eb) => eb.fn.countAll<number>().as('n')).where('owner_id', '=', ownerId).where('profile_id', '=', profileId).where(isActive()).executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** Whether the subscriber may see what a contact shows (the audience rule), and whose it is: one row by primary key. */
    contactAccess: async (subscriberId: string, id: string): Promise<ContactAccessRow | undefined> => contactAccessStatement.first(db, { subscriberId, id }),
    /** What a contact's card needs, read with its access: one row by primary key. */
    card: async (subscriberId: string, id: string): Promise<ContactCardRow | undefined> => contactCardStatement.first(db, { subscriberId, id }),
    /** The same without the card itself, for a conditional read (If-None-Match). */
    cardTag: async (subscriberId: string, id: string): Promise<Omit<ContactCardRow, 'card_json'> | undefined> => contactCardTagStatement.first(db, { subscriberId, id }),
    /** Every card the subscriber may see now, oldest contact first, for one address-book file. */
    async shownCards(subscriberId: string): Promise<ContactCardRow[]> {
      return cardsOf(subscriberId)
        .select('profiles.card_json')
        .where(contactAccessRule, '=', 'shown')
        .orderBy('subscriptions.created_at')
        .orderBy('subscriptions.id')
        .execute();
    },
    /**
     * The cards the subscriber may see now (the audience rule says `shown`), as an address book
     * lists them (PRODUCT §9): a page in contact order after `after`, or those of some owners.
     * Without `json` the card itself is not read, only what its tag is made of.
     */
    async shownCardsPage(
      subscriberId: string,
      select: { owners?: readonly string[]; after?: KeysetPosition; limit: number; json: boolean },
    ): Promise<Array<Omit<ContactCardRow, 'card_json'> & { card_json?: string | null; id: string; created_at: number }>> {
      if (select.owners?.length === 0) return [];
      const query = cardsOf(subscriberId)
        .select(['subscriptions.id', 'subscriptions.created_at'])
        .$if(select.json, (q) => q.select('profiles.card_json'))
        // Shown is active, and so live: with the live pair's condition as its unique index writes it
        // (literals), each owner is one probe of that index, however many follow them.
        .$if(select.owners !== undefined, (q) => q.where('subscriptions.owner_id', 'in', select.owners!).where(inLivePair('subscriptions.status')))
        .where(contactAccessRule, '=', 'shown');
      return keysetPage(query, select.after, select.limit, { table: 'subscriptions' }).execute();
    },
    /**
     * The subscriber's contact id when it receives the profile a row names now, else null (two
     * column references): one probe of the live-pair index (the `in` repeats its condition, so
     * SQLite uses it), however many follow the owner.
     */
    receivedContact(subscriberId: string, ownerColumn: string, profileColumn: string): RawBuilder<string | null> {
      return sql<string | null>`(select received.id ${receivesCard(subscriberId, ownerColumn, profileColumn)})`;
    },
    /** The cards the subscriber receives now, with their contact ids, as a subquery. */
    receivedCards(subscriberId: string): SelectQueryBuilder<any, any, { contact_id: string; owner_id: string; profile_id: string | null }> {
      return receivedBy(subscriberId).select(['subscriptions.id as contact_id', 'subscriptions.owner_id', 'subscriptions.profile_id']) as unknown as SelectQueryBuilder<any, any, { contact_id: string; owner_id: string; profile_id: string | null }>;
    },
    /** The owners the subscriber has a live subscription to (as far as it can tell: LIVE_TO_SUBSCRIBER). */
    async liveOwnersFor(subscriberId: string): Promise<string[]> {
      const rows = await db.selectFrom('subscriptions').select('owner_id').where('subscriber_id', '=', subscriberId).where('status', 'in', LIVE_TO_SUBSCRIBER).execute();
      return rows.map((row) => row.owner_id);
    },
    /** The owner's profiles that someone receives now, each once. */
    async profilesReceivedFrom(ownerId: string): Promise<string[]> {
      const rows = await db.selectFrom('subscriptions').select('profile_id').distinct().where('owner_id', '=', ownerId).where(isActive()).execute();
      return rows.flatMap((row) => (row.profile_id === null ? [] : [row.profile_id]));
    },
    /**
     * Across regions (decision 352): subscriptions with their profile's card, for a delivery to
     * the other side. Of one pair, or (`region`) every one of an owner's subscribers from there.
     */
    async forDelivery(where: { ownerId: string; subscriberId: string } | { ownerId: string; region: string } | { id: string }) {
      return db
        .selectFrom('subscriptions')
        .innerJoin('accounts', 'accounts.id', 'subscriptions.subscriber_id')
        .leftJoin('profiles', 'profiles.id', 'subscriptions.profile_id')
        .selectAll('subscriptions')
        // The subscriber's name as the other region knows them: read here, not once per row after.
        .select(['accounts.username as subscriber_username', 'profiles.card_json', 'profiles.card_hash', 'profiles.card_updated_at'])
        .$if('subscriberId' in where, (q) => q.where('subscriptions.owner_id', '=', (where as { ownerId: string }).ownerId).where('subscriptions.subscriber_id', '=', (where as { subscriberId: string }).subscriberId))
        .$if('region' in where, (q) => q.where('subscriptions.owner_id', '=', (where as { ownerId: string }).ownerId).where('subscriptions.subscriber_region', '=', (where as { region: string }).region))
        .$if('id' in where, (q) => q.where('subscriptions.id', '=', (where as { id: string }).id))
        .orderBy('subscriptions.created_at')
        .execute();
    },
    /** One subscription by id, whoever's (the other region names it; the caller checks whose it is). */
    async byId(id: string): Promise<SubscriptionRecord | undefined> {
      return db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /** A contact from another region as its owner's region last said it is (decision 352). */
    async setFromRegion(id: string, changes: Pick<SubscriptionRecord, 'status' | 'profile_id' | 'message' | 'updated_at' | 'card_since' | 'card_changes' | 'remote_version'>): Promise<void> {
      await db.updateTable('subscriptions').set((eb) => ({ ...changes, version: eb('version', '+', 1) })).where('id', '=', id).execute();
    },
    /**
     * The peer regions with active followers of each profile: one probe of the partial index
     * (migration 028) per profile and region, whatever the audience's size.
     */
    async remoteAudience(profileIds: readonly string[], regions: readonly string[]): Promise<Array<{ profile_id: string; region: string }>> {
      const found: Array<{ profile_id: string; region: string }> = [];
      for (const profile_id of profileIds) {
        for (const region of regions) {
          const hit = await db.selectFrom('subscriptions').select('id').where('profile_id', '=', profile_id).where('subscriber_region', '=', region).where('status', '=', ACTIVE_LITERAL).limit(1).executeTakeFirst();
          if (hit) found.push({ profile_id, region });
        }
      }
      return found;
    },
    /** The regions an owner has subscribers in (any status): who must hear of the owner's account. */
    async subscriberRegionsOf(ownerId: string): Promise<string[]> {
      const rows = await db.selectFrom('subscriptions').select('subscriber_region').distinct().where('owner_id', '=', ownerId).where('subscriber_region', 'is not', null).execute();
      return rows.map((row) => row.subscriber_region!);
    },
    /** The regions of the owners from elsewhere a subscriber has subscriptions to (any status). */
    async ownerRegionsOf(subscriberId: string, here: string): Promise<string[]> {
      const rows = await db.selectFrom('subscriptions').innerJoin('accounts', 'accounts.id', 'subscriptions.owner_id').select('accounts.region').distinct().where('subscriptions.subscriber_id', '=', subscriberId).where('accounts.region', '<>', here).execute();
      return rows.map((row) => row.region);
    },
    /** A profile's rendered card and its content hash (what does a move change for the subscriber?). */
    async renderedCard(profileId: string | null): Promise<{ card_json: string; card_hash: string } | undefined> {
      if (!profileId) return undefined;
      return db.selectFrom('profiles').select(['card_json', 'card_hash']).where('id', '=', profileId).executeTakeFirst();
    },
  };
}

export function blockQueries(db: Kysely<ContactTables>) {
  return {
    async isBlocked(ownerId: string, subscriberId: string): Promise<boolean> {
      return !!(await db.selectFrom('blocks').select('owner_id').where('owner_id', '=', ownerId).where('blocked_id', '=', subscriberId).executeTakeFirst());
    },
    async block(ownerId: string, blockedId: string, at: number): Promise<void> {
      await db.insertInto('blocks').values({ owner_id: ownerId, blocked_id: blockedId, created_at: at }).onConflict((oc) => oc.columns(['owner_id', 'blocked_id']).doNothing()).execute();
    },
    async unblock(ownerId: string, blockedId: string): Promise<boolean> {
      const result = await db.deleteFrom('blocks').where('owner_id', '=', ownerId).where('blocked_id', '=', blockedId).executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
    /** The purge: blocks the account made, and blocks of it (a tombstone is nobody to block). */
    async removeAllOf(accountId: string): Promise<void> {
      await db.deleteFrom('blocks').where((eb) => eb.or([eb('owner_id', '=', accountId), eb('blocked_id', '=', accountId)])).execute();
    },
    async list(ownerId: string, after: KeysetPosition | undefined, limit: number) {
      const query = db
        .selectFrom('blocks')
        .innerJoin('accounts', 'accounts.id', 'blocks.blocked_id')
        .select(['blocks.blocked_id as id', 'blocks.created_at', 'accounts.username', 'accounts.display_name', 'accounts.region'])
        .where('blocks.owner_id', '=', ownerId);
      return keysetPage(query, after, limit, { table: 'blocks', idColumn: 'blocked_id' }).execute();
    },
  };
}

export function annotationQueries(db: Kysely<ContactTables>) {
  return {
    async find(authorId: string, subscriptionId: string): Promise<AnnotationRecord | undefined> {
      return db.selectFrom('annotations').selectAll().where('subscription_id', '=', subscriptionId).where('author_id', '=', authorId).executeTakeFirst();
    },
    async insert(row: AnnotationRecord): Promise<void> {
      await db.insertInto('annotations').values(row).execute();
    },
    /** Compare-and-swap on version (If-Match). */
    async update(authorId: string, subscriptionId: string, expectedVersion: number, changes: { note: string; labels: string; updated_at: number }): Promise<AnnotationRecord | undefined> {
      return db
        .updateTable('annotations')
        .set({ ...changes, version: expectedVersion + 1 })
        .where('subscription_id', '=', subscriptionId)
        .where('author_id', '=', authorId)
        .where('version', '=', expectedVersion)
        .returningAll()
        .executeTakeFirst();
    },
    async remove(authorId: string, subscriptionId: string, expectedVersion?: number): Promise<boolean> {
      let query = db.deleteFrom('annotations').where('subscription_id', '=', subscriptionId).where('author_id', '=', authorId);
      if (expectedVersion !== undefined) query = query.where('version', '=', expectedVersion);
      return Number((await query.executeTakeFirst()).numDeletedRows) === 1;
    },
    async setLabels(authorId: string, subscriptionId: string, labels: readonly string[]): Promise<void> {
      await db.deleteFrom('annotation_labels').where('subscription_id', '=', subscriptionId).execute();
      if (labels.length) {
        await db
          .insertInto('annotation_labels')
          .values(labels.map((label) => ({ subscription_id: subscriptionId, author_id: authorId, label, label_key: labelKey(label) })))
          .execute();
      }
    },
    /** An author's annotations in (created_at, subscription_id) order (the export). */
    async byAuthor(authorId: string, after: KeysetPosition | undefined, limit: number): Promise<AnnotationRecord[]> {
      return keysetPage(db.selectFrom('annotations').selectAll().where('author_id', '=', authorId), after, limit, { idColumn: 'subscription_id' }).execute();
    },
    /** The purge: what the account wrote about its contacts (labels follow by foreign key). */
    async removeByAuthor(authorId: string): Promise<void> {
      await db.deleteFrom('annotations').where('author_id', '=', authorId).execute();
    },
    /**
     * The author's labels with how many of their contacts carry each, in one grouped read: one
     * page in the order of the labels' case-folded keys, the keys after `afterKey`.
     */
    async labelCounts(authorId: string, afterKey: string | undefined, limit: number): Promise<Array<{ label: string; label_key: string; count: number }>> {
      let query = db
        .selectFrom('annotation_labels')
        .innerJoin('subscriptions', 'subscriptions.id', 'annotation_labels.subscription_id')
        .select(['annotation_labels.label_key', (eb) => eb.fn.min('annotation_labels.label').as('label'), (eb) => eb.fn.countAll<number>().as('n')])
        .where('annotation_labels.author_id', '=', authorId)
        .where('subscriptions.hidden_at', 'is', null);
      if (afterKey !== undefined) query = query.where('annotation_labels.label_key', '>', afterKey);
      const rows = await query.groupBy('annotation_labels.label_key').orderBy('annotation_labels.label_key').limit(limit).execute();
      return rows.map((row) => ({ label: String(row.label), label_key: row.label_key, count: Number(row.n) }));
    },
    /** The labels of several contacts of one author (a page of /contacts). */
    /** Every label the author gave, per contact (a search looks through all of them). */
    async allLabelsOf(authorId: string): Promise<Map<string, string[]>> {
      const rows = await db.selectFrom('annotations').select(['subscription_id', 'labels']).where('author_id', '=', authorId).execute();
      return new Map(rows.map((row) => [row.subscription_id, JSON.parse(row.labels) as string[]]));
    },
    async labelsOf(authorId: string, subscriptionIds: readonly string[]): Promise<Map<string, string[]>> {
      if (subscriptionIds.length === 0) return new Map();
      const rows = await db.selectFrom('annotations').select(['subscription_id', 'labels']).where('author_id', '=', authorId).where('subscription_id', 'in', subscriptionIds).execute();
      return new Map(rows.map((row) => [row.subscription_id, JSON.parse(row.labels) as string[]]));
    },
  };
}

/** Labels compare ignoring case (PRODUCT §5). */
export const labelKey = (label: string) => label.normalize('NFKC').toLowerCase();
