import type { Kysely, Migration } from 'kysely';

/**
 * What changed for a subscriber when they began seeing their card (an approval: nothing; a move:
 * the kinds of detail between the old profile's card and the new one's), as a JSON array the
 * card builder made (profiles/card.ts cardChanges). Served as the card's `changed` while the
 * card has not changed since; null for subscriptions from before, whose cards then leave it out.
 */
export const cardChanges: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('subscriptions').addColumn('card_changes', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('subscriptions').dropColumn('card_changes').execute();
  },
};
