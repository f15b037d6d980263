import { sql } from 'kysely';
import type { Kysely, Selectable } from 'kysely';
import type { Generated } from 'kysely';
import { keysetPage } from '../../platform/store/keyset.js';
import type { KeysetPosition } from '../../platform/store/keyset.js';

/** Join codes and attempts (005-join). */
export interface JoinCodesTable {
  id: string;
  account_id: string;
  session_id: string;
  code_hash: string;
  failures: Generated<number>;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  voided_at: number | null;
}

export interface JoinAttemptsTable {
  id: string;
  account_id: string;
  via: string;
  jkt: string;
  status: string;
  challenge: string | null;
  ip: string;
  location: string | null;
  user_agent: string;
  created_at: number;
  expires_at: number;
  decided_at: number | null;
  decided_by: string | null;
  finished_at: number | null;
}

interface JoinTables {
  join_codes: JoinCodesTable;
  join_attempts: JoinAttemptsTable;
}


export type JoinAttemptRecord = Selectable<JoinAttemptsTable>;
export type JoinCodeRecord = Selectable<JoinCodesTable>;

export function joinQueries(db: Kysely<JoinTables>) {
  return {
    /** The purge: the account's codes and attempts. */
    async removeAll(accountId: string): Promise<void> {
      await db.deleteFrom('join_attempts').where('account_id', '=', accountId).execute();
      await db.deleteFrom('join_codes').where('account_id', '=', accountId).execute();
    },
    /** A new code voids the issuing session's previous one (PRODUCT §1 join/issue). */
    async replaceCode(code: { id: string; account_id: string; session_id: string; code_hash: string; created_at: number; expires_at: number }): Promise<void> {
      await db.updateTable('join_codes').set({ voided_at: code.created_at }).where('session_id', '=', code.session_id).where('used_at', 'is', null).where('voided_at', 'is', null).execute();
      await db.insertInto('join_codes').values({ ...code, used_at: null, voided_at: null }).execute();
    },
    /**
     * Redeems a live code of the account in one statement, so of two concurrent redeems exactly
     * one wins (ARCHITECTURE habit 7).
     */
    async consumeCode(accountId: string, codeHashes: readonly string[], now: number): Promise<boolean> {
      const used = await db
        .updateTable('join_codes')
        .set({ used_at: now })
        .where('account_id', '=', accountId)
        .where('code_hash', 'in', codeHashes)
        .where('used_at', 'is', null)
        .where('voided_at', 'is', null)
        .where('expires_at', '>', now)
        .returning('id')
        .executeTakeFirst();
      return used !== undefined;
    },
    /** Counts a wrong code against every live code of the account; voids them at the limit. How many it voided. */
    async recordWrongCode(accountId: string, now: number, limit: number): Promise<number> {
      await db
        .updateTable('join_codes')
        .set((eb) => ({ failures: eb('failures', '+', 1) }))
        .where('account_id', '=', accountId)
        .where('used_at', 'is', null)
        .where('voided_at', 'is', null)
        .where('expires_at', '>', now)
        .execute();
      const voided = await db
        .updateTable('join_codes')
        .set({ voided_at: now })
        .where('account_id', '=', accountId)
        .where('voided_at', 'is', null)
        .where('used_at', 'is', null)
        .where('failures', '>=', limit)
        .executeTakeFirst();
      return Number(voided.numUpdatedRows);
    },
    /**
     * The code a session issued last. Issuing voids the one before, so of two issued in the same
     * millisecond the one not voided is the newer.
     */
    async latestCodeOf(sessionId: string): Promise<JoinCodeRecord | undefined> {
      return db
        .selectFrom('join_codes')
        .selectAll()
        .where('session_id', '=', sessionId)
        .orderBy('created_at', 'desc')
        .orderBy(sql`case when voided_at is null then 0 else 1 end`)
        .limit(1)
        .executeTakeFirst();
    },
    async insertAttempt(attempt: JoinAttemptRecord): Promise<void> {
      await db.insertInto('join_attempts').values(attempt).execute();
    },
    async findAttempt(id: string): Promise<JoinAttemptRecord | undefined> {
      return db.selectFrom('join_attempts').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /** One page of the attempts awaiting the account's approval, newest first. */
    async listAwaiting(accountId: string, now: number, after: KeysetPosition | undefined, limit: number): Promise<JoinAttemptRecord[]> {
      const query = db
        .selectFrom('join_attempts')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('status', '=', 'awaiting_approval')
        .where('expires_at', '>', now);
      return keysetPage(query, after, limit, { order: 'desc' }).execute();
    },
    /**
     * A transition as one conditional update (decision 030; the table is states.ts): the attempt
     * moves only from one of `from` and only while unexpired, so of two racing transitions exactly
     * one wins. False when it did not move.
     */
    async transition(
      id: string,
      // States as the table names them; queries sit below it and take plain strings.
      from: readonly string[],
      to: { status: string; decided_at?: number; finished_at?: number; decided_by?: string; challenge?: string | null },
      now: number,
    ): Promise<boolean> {
      const result = await db
        .updateTable('join_attempts')
        .set(to)
        .where('id', '=', id)
        .where('status', 'in', from)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async setChallenge(id: string, challenge: string): Promise<void> {
      await db.updateTable('join_attempts').set({ challenge }).where('id', '=', id).execute();
    },
  };
}
