import type { Kysely, Migration } from 'kysely';

/**
 * What a session list shows of each device beyond its user agent: the approximate place it
 * signed in from ("Berlin, DE", from the offline IP database when the session opened; null for
 * sessions opened before) and the passkey it signed in with, so the passkey list can mark "this
 * device" (null: a join without a passkey, or a session opened before). No foreign key: a
 * removed passkey leaves its sessions alone, and the mark simply matches nothing.
 */
export const sessionDevices: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('sessions').addColumn('location', 'text').execute();
    await db.schema.alterTable('sessions').addColumn('passkey_id', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('sessions').dropColumn('passkey_id').execute();
    await db.schema.alterTable('sessions').dropColumn('location').execute();
  },
};
