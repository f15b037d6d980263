import { nameInRegion } from '../../platform/person-name.js';
import { sql } from 'kysely';
import type { Generated, Kysely } from 'kysely';
import { ACCOUNT_COLUMNS } from '../../platform/store/accounts.js';
import type { AccountRecord } from '../../platform/store/accounts.js';
import type { AccountsTable } from '../../platform/store/schema.js';

interface RegionTables {
  region_outbox: { id: Generated<number>; region: string; subject: string; generation: number; created_at: number };
  region_nonces: { region: string; nonce: string; expires_at: number };
  region_peers: { region: string; heard_at: number };
  accounts: AccountsTable;
}

export interface OutboxRow {
  id: number;
  subject: string;
  generation: number;
}

/** What a peer region must be told (migration 029): one row per subject, oldest first. */
export function outboxQueries(db: Kysely<RegionTables>) {
  return {
    /** A subject to tell `region` of: a new row, or the waiting one's generation moved on. */
    async enqueue(region: string, subject: string, at: number): Promise<void> {
      await db
        .insertInto('region_outbox')
        .values({ region, subject, generation: 1, created_at: at })
        .onConflict((oc) => oc.columns(['region', 'subject']).doUpdateSet({ generation: sql`region_outbox.generation + 1` }))
        .execute();
    },
    async waiting(region: string, limit: number): Promise<OutboxRow[]> {
      const rows = await db.selectFrom('region_outbox').select(['id', 'subject', 'generation']).where('region', '=', region).orderBy('id').limit(limit).execute();
      return rows.map((row) => ({ id: Number(row.id), subject: row.subject, generation: Number(row.generation) }));
    },
    /** One subject still waiting to be told to `region`, if it is. */
    async find(region: string, subject: string): Promise<OutboxRow | undefined> {
      const row = await db.selectFrom('region_outbox').select(['id', 'subject', 'generation']).where('region', '=', region).where('subject', '=', subject).executeTakeFirst();
      return row && { id: Number(row.id), subject: row.subject, generation: Number(row.generation) };
    },
    /** Delivered as of `generation`: gone, unless a change came since (then it is sent again). */
    async delivered(region: string, row: OutboxRow): Promise<void> {
      await db.deleteFrom('region_outbox').where('region', '=', region).where('subject', '=', row.subject).where('generation', '=', row.generation).execute();
    },
    async count(region: string): Promise<number> {
      const row = await db.selectFrom('region_outbox').select((eb) => eb.fn.countAll<number>().as('n')).where('region', '=', region).executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

/** Nonces of accepted requests until their signatures expire (RFC 9421 §7.2.2). */
export function nonceQueries(db: Kysely<RegionTables>) {
  return {
    /** False when the nonce was used before: the insert loses to the one that came first. */
    async firstUse(region: string, nonce: string, expiresAt: number): Promise<boolean> {
      const result = await db.insertInto('region_nonces').values({ region, nonce, expires_at: expiresAt }).onConflict((oc) => oc.doNothing()).executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
    },
    async prune(now: number): Promise<void> {
      await db.deleteFrom('region_nonces').where('expires_at', '<', now).execute();
    },
    /** A peer was heard from (migration 029, region_peers). */
    async heard(region: string, at: number): Promise<void> {
      await db
        .insertInto('region_peers')
        .values({ region, heard_at: at })
        .onConflict((oc) => oc.column('region').doUpdateSet({ heard_at: sql`case when excluded.heard_at > region_peers.heard_at then excluded.heard_at else region_peers.heard_at end` }))
        .execute();
    },
    async lastHeard(): Promise<Array<{ region: string; heard_at: number }>> {
      const rows = await db.selectFrom('region_peers').select(['region', 'heard_at']).execute();
      return rows.map((row) => ({ region: row.region, heard_at: Number(row.heard_at) }));
    },
  };
}

/**
 * Stand-ins (decision 352): an account row per person of another region that a subscription
 * here names, holding only `username@region` (its canonical name, which no name of this region
 * can be: `@` is not allowed in one), their display name, and whether their region says their
 * account is deleted or locked. No credential, session or field is ever held for one.
 */
export function standInQueries(db: Kysely<RegionTables>) {
  return {
    async byName(username: string, region: string): Promise<AccountRecord | undefined> {
      return db.selectFrom('accounts').select(ACCOUNT_COLUMNS).where('username_canonical', '=', nameInRegion(username, region)).where('region', '=', region).executeTakeFirst();
    },
    /** A person of this region by canonical name (never a stand-in: theirs has `@region`). */
    async local(canonical: string, region: string): Promise<AccountRecord | undefined> {
      return db.selectFrom('accounts').select(ACCOUNT_COLUMNS).where('username_canonical', '=', canonical).where('region', '=', region).executeTakeFirst();
    },
    async byId(id: string): Promise<AccountRecord | undefined> {
      return db.selectFrom('accounts').select(ACCOUNT_COLUMNS).where('id', '=', id).executeTakeFirst();
    },
    /** A stand-in, unless a concurrent change made it first (the canonical name is unique): then nothing. */
    async insert(account: AccountRecord): Promise<void> {
      await db.insertInto('accounts').values(account).onConflict((oc) => oc.column('username_canonical').doNothing()).execute();
    },
    async setState(id: string, state: { version: number; display_name: string | null; deleted_at: number | null; locked_at: number | null }): Promise<void> {
      await db.updateTable('accounts').set(state).where('id', '=', id).where('username_canonical', 'like', '%@%').execute();
    },
    /** A stand-in's display name as its region last said it (a card's owner, a subscription's). */
    async rename(id: string, displayName: string | null): Promise<void> {
      await db.updateTable('accounts').set({ display_name: displayName }).where('id', '=', id).where('username_canonical', 'like', '%@%').execute();
    },
    async remove(id: string): Promise<void> {
      await db.deleteFrom('accounts').where('id', '=', id).where('username_canonical', 'like', '%@%').execute();
    },
  };
}
