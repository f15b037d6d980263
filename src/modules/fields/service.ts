import { txHook } from '../../platform/hooks.js';
import { signal } from '../../platform/signals/signal.js';
import type { Tx } from '../../platform/store/store.js';
import { createFieldJudge } from './judging.js';
import { FIELD_LIMITS } from './limits.js';
import { photoType } from './photo.js';
import { createFieldReads } from './reading.js';
import type { FieldDeps } from './views.js';
import { createFieldWrites } from './writing.js';

export type { FieldDeps, FieldInput, FieldPatch, FieldView } from './views.js';

/**
 * Identity fields of the caller (PRODUCT §2): values judged by the catalog, stored normalised.
 * Its parts: reading (reading.ts), judging what a write brings (judging.ts) and writing
 * (writing.ts).
 */
export function createFieldService(deps: FieldDeps) {
  const { db } = deps;
  const limits = deps.limits ?? FIELD_LIMITS;
  /** A field changed or went, in the transaction of the change (profiles re-render their cards). */
  const changed = txHook<{ accountId: string }>();
  const reads = createFieldReads(deps);
  const writes = createFieldWrites(deps, limits, createFieldJudge(deps, limits), changed);

  // A deleted photo takes the fields showing it along, in its transaction; the cards re-render.
  deps.photos.onRemoved(async (tx, { accountId, photoId }) => {
    if ((await db.in(tx).fields.removeHolding(accountId, photoType.key, JSON.stringify({ photo_id: photoId }))) === 0) return;
    await signal(tx, accountId, 'fields.changed');
    await changed.run(tx, { accountId });
  });

  return {
    onChange: changed.subscribe,
    owns: reads.owns,
    exportPages: reads.exportPages,
    /** The purge (PRODUCT §8). */
    async erase(tx: Tx, accountId: string): Promise<void> {
      await db.in(tx).fields.removeAll(accountId);
    },
    list: reads.list,
    get: reads.get,
    create: writes.create,
    update: writes.update,
    remove: writes.remove,
  };
}

export type FieldService = ReturnType<typeof createFieldService>;
