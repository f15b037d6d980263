import type { Kysely, Migration } from 'kysely';

/**
 * The federation between one operator's regions (PRODUCT §10, decision 352).
 *
 * - `region_outbox`: what a peer region must be told, written in the transaction of the change
 *   that makes it so. One row per (region, subject): a second change of the same subject before
 *   the delivery bumps `generation`, and the delivery, which sends the subject's state as it is
 *   when sent, removes the row only if no change came meanwhile. `id` orders subjects (per
 *   owner: the order their changes committed in).
 * - `region_peers`: when each peer region was last heard from (any signed request it sent, a
 *   heartbeat at least every minute): a card copy from a region unheard for longer than the
 *   bound is shown as not current (decision 352).
 * - `region_nonces`: the nonces of accepted signed requests until their signature expires, so a
 *   replayed request is refused on every node (RFC 9421 §7.2.2).
 */
export const regions: Migration = {
  async up(db: Kysely<any>) {
    const postgres = db.getExecutor().adapter.constructor.name === 'PostgresAdapter';
    await db.schema
      .createTable('region_outbox')
      .addColumn('id', postgres ? 'bigint' : 'integer', (c) => (postgres ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey()))
      .addColumn('region', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('generation', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('region_outbox_subject_uq', ['region', 'subject'])
      .execute();
    await db.schema.createIndex('region_outbox_order_idx').on('region_outbox').columns(['region', 'id']).execute();
    await db.schema
      .createTable('region_nonces')
      .addColumn('region', 'text', (c) => c.notNull())
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('region_nonces_pk', ['region', 'nonce'])
      .execute();
    await db.schema
      .createTable('region_peers')
      .addColumn('region', 'text', (c) => c.primaryKey())
      .addColumn('heard_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('region_nonces_expiry_idx').on('region_nonces').columns(['expires_at']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('region_peers').execute();
    await db.schema.dropTable('region_nonces').execute();
    await db.schema.dropTable('region_outbox').execute();
  },
};
