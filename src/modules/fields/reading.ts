import type { AuthContext } from '../../platform/caller.js';
import { keysetPages, page } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import type { Tx } from '../../platform/store/store.js';
import { notFound, unknownType, view } from './views.js';
import type { FieldDeps, FieldView } from './views.js';

/** Reading the caller's fields: a page, one field, whether the account holds one, the export. */
export function createFieldReads(deps: Pick<FieldDeps, 'db' | 'catalog'>) {
  const { db, catalog } = deps;

  return {
    /** Whether the account holds this field, in the caller's transaction (a profile exposing it). */
    owns: async (tx: Tx, accountId: string, id: string): Promise<boolean> => Boolean(await db.in(tx).fields.find(accountId, id)),

    /** Every field, a page at a time (the account export). */
    async *exportPages(accountId: string): AsyncIterable<FieldView[]> {
      for await (const rows of keysetPages((after, limit) => db.direct.fields.list(accountId, after, limit), (row) => row)) yield rows.map(view);
    },

    async list(auth: AuthContext, cursor: string | undefined, limit: number, type?: string): Promise<Page<FieldView>> {
      if (type !== undefined && !catalog.definition(type)) throw unknownType(type);
      return page((after, size) => db.direct.fields.list(auth.account.id, after, size, type), cursor, limit, view);
    },

    async get(auth: AuthContext, id: string): Promise<FieldView> {
      const row = await db.direct.fields.find(auth.account.id, id);
      if (!row) throw notFound();
      return view(row);
    },
  };
}
