import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

/**
 * Signal numbers come from the log itself (one past an account's newest signal) instead of a
 * counter on the account row (docs/decisions/080-signal-numbers-from-the-log.md). An account
 * whose newest signals were already pruned keeps its position with one signal at its counter,
 * so no number is handed out twice; then the counter goes.
 */
export const signalNumbers: Migration = {
  async up(db: Kysely<any>) {
    const now = Date.now();
    await sql`
      insert into events (account_id, seq, kind, resource, created_at)
      select a.id, a.event_seq, 'account.changed', '/me', ${sql.lit(now)} from accounts a
      where a.event_seq > coalesce((select max(e.seq) from events e where e.account_id = a.id), 0)
    `.execute(db);
    await db.schema.alterTable('accounts').dropColumn('event_seq').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('accounts').addColumn('event_seq', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await sql`update accounts set event_seq = coalesce((select max(e.seq) from events e where e.account_id = accounts.id), 0)`.execute(db);
  },
};
