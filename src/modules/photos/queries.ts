import type { Kysely, Selectable } from 'kysely';
import { keysetPage } from '../../platform/store/keyset.js';
import type { KeysetPosition } from '../../platform/store/keyset.js';
import type { PhotoSize, PhotosTable } from './tables.js';

export type PhotoRecord = Selectable<PhotosTable>;
export type PhotoSummary = Pick<PhotoRecord, 'id' | 'account_id' | 'digest' | 'created_at'>;

const column = (size: PhotoSize) => `jpeg_${size}` as const;

export function photoQueries(db: Kysely<{ photos: PhotosTable }>) {
  const summary = () => db.selectFrom('photos').select(['id', 'account_id', 'digest', 'created_at']);
  return {
    async insert(row: PhotoRecord): Promise<void> {
      await db.insertInto('photos').values(row).execute();
    },
    async count(accountId: string): Promise<number> {
      const row = await db.selectFrom('photos').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async find(accountId: string, id: string): Promise<PhotoSummary | undefined> {
      return summary().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    },
    /** One size's bytes and tag, whoever owns it (the caller decided who may see it). */
    async bytes(id: string, size: PhotoSize): Promise<{ account_id: string; digest: string; bytes: Buffer } | undefined> {
      return db.selectFrom('photos').select(['account_id', 'digest', `${column(size)} as bytes`]).where('id', '=', id).executeTakeFirst() as Promise<{ account_id: string; digest: string; bytes: Buffer } | undefined>;
    },
    /** Several photos' bytes in one size, by id (a page of vCards). */
    async bytesOf(ids: readonly string[], size: PhotoSize): Promise<Array<{ id: string; bytes: Buffer }>> {
      if (ids.length === 0) return [];
      return db.selectFrom('photos').select(['id', `${column(size)} as bytes`]).where('id', 'in', ids).execute() as Promise<Array<{ id: string; bytes: Buffer }>>;
    },
    async list(accountId: string, after: KeysetPosition | undefined, limit: number): Promise<PhotoSummary[]> {
      return keysetPage(summary().where('account_id', '=', accountId), after, limit, { table: 'photos' }).execute();
    },
    /** The export: every size of each photo, a page at a time. */
    async fullList(accountId: string, after: KeysetPosition | undefined, limit: number): Promise<PhotoRecord[]> {
      return keysetPage(db.selectFrom('photos').selectAll().where('account_id', '=', accountId), after, limit, { table: 'photos' }).execute();
    },
    async remove(accountId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('photos').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
    async removeAll(accountId: string): Promise<void> {
      await db.deleteFrom('photos').where('account_id', '=', accountId).execute();
    },
  };
}
