import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

/**
 * Subscriptions (PRODUCT §4): one row seen from two sides, the owner's (/subscriptions) and the
 * subscriber's (/contacts). Blocks, and the subscriber's private annotations with their labels.
 */
export const subscriptions: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('subscriptions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('owner_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('subscriber_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      // The profile the subscriber sees: set on approval, changed by a move; kept after the end.
      .addColumn('profile_id', 'text', (c) => c.references('profiles.id').onDelete('set null'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('message', 'text')
      .addColumn('share_link_id', 'text')
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      // When the subscriber started seeing this profile's card (approval, move).
      .addColumn('card_since', 'bigint')
      // The subscriber removed an ended, denied or revoked contact from their list.
      .addColumn('hidden_at', 'bigint')
      .execute();
    // One live (pending or active) subscription per pair: of two racing requests one wins.
    await db.schema
      .createIndex('subscriptions_live_pair_uq')
      .on('subscriptions')
      .columns(['owner_id', 'subscriber_id'])
      .unique()
      .where(sql.ref('status'), 'in', ['pending', 'active'])
      .execute();
    await db.schema.createIndex('subscriptions_owner_idx').on('subscriptions').columns(['owner_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('subscriptions_subscriber_idx').on('subscriptions').columns(['subscriber_id', 'created_at', 'id']).execute();
    // Fan-out: the active subscribers of a profile, in one index range.
    await db.schema.createIndex('subscriptions_profile_idx').on('subscriptions').columns(['profile_id', 'status']).execute();

    await db.schema
      .createTable('blocks')
      .addColumn('owner_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('blocked_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('blocks_pk', ['owner_id', 'blocked_id'])
      .execute();

    await db.schema
      .createTable('annotations')
      .addColumn('subscription_id', 'text', (c) => c.primaryKey().references('subscriptions.id').onDelete('cascade'))
      .addColumn('author_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('note', 'text', (c) => c.notNull())
      .addColumn('labels', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    // Labels one per row, so counting and filtering by label are indexed reads.
    await db.schema
      .createTable('annotation_labels')
      .addColumn('subscription_id', 'text', (c) => c.notNull().references('annotations.subscription_id').onDelete('cascade'))
      .addColumn('author_id', 'text', (c) => c.notNull())
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('label_key', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('annotation_labels_pk', ['subscription_id', 'label_key'])
      .execute();
    await db.schema.createIndex('annotation_labels_author_idx').on('annotation_labels').columns(['author_id', 'label_key']).execute();
  },
  async down(db: Kysely<any>) {
    for (const table of ['annotation_labels', 'annotations', 'blocks', 'subscriptions']) await db.schema.dropTable(table).execute();
  },
};
