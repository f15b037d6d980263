import type { Kysely, Selectable } from 'kysely';
import { keysetPage } from '../../platform/store/keyset.js';
import type { KeysetPosition } from '../../platform/store/keyset.js';
import type { FieldsTable } from './tables.js';


export type FieldRecord = Selectable<FieldsTable>;

export interface FieldChanges {
  label?: string | null;
  country?: string | null;
  value?: string;
  input?: string | null;
  details?: string;
  updated_at: number;
}

/** Identity fields (PRODUCT §2): one row per field, value and typed input as JSON text. */
export function fieldQueries(db: Kysely<{ fields: FieldsTable }>) {
  return {
    async insert(field: FieldRecord): Promise<void> {
      await db.insertInto('fields').values(field).execute();
    },
    async find(accountId: string, id: string): Promise<FieldRecord | undefined> {
      return db.selectFrom('fields').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    },
    /** Fields of an account in (created_at, id) order after a keyset position, optionally of one type. */
    async list(accountId: string, after: KeysetPosition | undefined, limit: number, type?: string): Promise<FieldRecord[]> {
      let query = db.selectFrom('fields').selectAll().where('account_id', '=', accountId);
      if (type !== undefined) query = query.where('type', '=', type);
      return keysetPage(query, after, limit).execute();
    },
    async count(accountId: string): Promise<number> {
      const row = await db
        .selectFrom('fields')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async findOfType(accountId: string, type: string): Promise<FieldRecord | undefined> {
      return db.selectFrom('fields').selectAll().where('account_id', '=', accountId).where('type', '=', type).executeTakeFirst();
    },
    /** Compare-and-swap on version (If-Match): undefined when the field is not there or moved on. */
    async update(accountId: string, id: string, expectedVersion: number, changes: FieldChanges): Promise<FieldRecord | undefined> {
      return db
        .updateTable('fields')
        .set({ ...changes, version: expectedVersion + 1 })
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .where('version', '=', expectedVersion)
        .returningAll()
        .executeTakeFirst();
    },
    /** The purge: every field of the account (their exposures follow by foreign key). */
    async removeAll(accountId: string): Promise<void> {
      await db.deleteFrom('fields').where('account_id', '=', accountId).execute();
    },
    /** The fields of one type holding exactly this (stored, normalised) value: a deleted photo's. */
    async removeHolding(accountId: string, type: string, value: string): Promise<number> {
      const result = await db.deleteFrom('fields').where('account_id', '=', accountId).where('type', '=', type).where('value', '=', value).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async remove(accountId: string, id: string, expectedVersion: number): Promise<boolean> {
      const result = await db
        .deleteFrom('fields')
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .where('version', '=', expectedVersion)
        .executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
  };
}

export type FieldQueries = ReturnType<typeof fieldQueries>;
