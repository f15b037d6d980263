import type { Kysely, Migration } from 'kysely';

/**
 * Card changes fanned out on read (decision 220): a follower's signal feed takes the edits of
 * the cards it receives from the card-change log instead of one signal row per follower.
 *
 * - `edited` tells an edit of the card itself (the card now shows something else: its
 *   followers hear contact.card.changed) from a change of who receives it (a move onto the
 *   profile, the owner deleted or restored: those are told per follower, as before).
 * - The index on (subscriber_id, owner_id, seq) finds a follower's newest row with one owner:
 *   edits before it (before the follower was let in, or moved) are not theirs to hear of.
 */
export const cardEdits: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('card_change_log').addColumn('edited', 'smallint', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.createIndex('card_change_log_subscriber_owner_idx').on('card_change_log').columns(['subscriber_id', 'owner_id', 'seq']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('card_change_log_subscriber_owner_idx').execute();
    await db.schema.alterTable('card_change_log').dropColumn('edited').execute();
  },
};
