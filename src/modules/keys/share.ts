import type { AuthContext } from '../../platform/caller.js';
import { refuse } from '../../platform/errors.js';
import { signal } from '../../platform/signals/signal.js';
import { uniqueViolation } from '../../platform/store/store.js';
import { opaque, shareNotFound, shareView, Unchanged } from './material.js';
import type { KeyDeps, KeyShareView } from './material.js';
import type { KeyShareRecord } from './queries.js';

/** The account's server share of a split secret: only the owner reads it, and only the owner's devices are told. */
export function createKeyShare(deps: Pick<KeyDeps, 'db' | 'clock'>) {
  const { db, clock } = deps;

  return {
    async get(auth: AuthContext): Promise<KeyShareView> {
      const row = await db.direct.shares.find(auth.account.id);
      if (!row) throw shareNotFound();
      return shareView(row);
    },

    /** PUT: creates without If-Match (201), then needs it. Private: only the owner's devices are told. */
    async put(auth: AuthContext, expectedVersion: number | undefined, input: string): Promise<{ created: boolean; share: KeyShareView }> {
      const accountId = auth.account.id;
      const share = opaque(input, 'invalid_key_share', '/share');
      try {
        return await db.transaction(async (q, tx) => {
          await signal(tx, accountId, 'keys.changed');
          const current = await q.shares.find(accountId);
          const now = clock.now();
          if (!current) {
            if (expectedVersion !== undefined) throw refuse('version_mismatch', 'no server share is stored yet: send the first PUT without If-Match');
            const row: KeyShareRecord = { account_id: accountId, share, version: 1, created_at: now, updated_at: now };
            await q.shares.insert(row);
            return { created: true, share: shareView(row) };
          }
          if (expectedVersion === undefined) throw refuse('precondition_required', 'a server share is stored: send If-Match with the ETag you last read');
          if (expectedVersion !== current.version) throw refuse('version_mismatch', 'the server share changed since you read it; fetch it again');
          if (current.share === share) throw new Unchanged(shareView(current));
          const row = await q.shares.update(accountId, expectedVersion, share, now);
          if (!row) throw refuse('version_mismatch', 'the server share changed since you read it; fetch it again');
          return { created: false, share: shareView(row) };
        });
      } catch (error) {
        if (error instanceof Unchanged) return { created: false, share: error.view as KeyShareView };
        if (uniqueViolation(error)) throw refuse('precondition_required', 'a server share is stored now: send If-Match with the ETag you read');
        throw error;
      }
    },

    async remove(auth: AuthContext, expectedVersion: number): Promise<void> {
      const accountId = auth.account.id;
      await db.transaction(async (q, tx) => {
        await signal(tx, accountId, 'keys.changed');
        if (await q.shares.remove(accountId, expectedVersion)) return;
        throw (await q.shares.find(accountId)) ? refuse('version_mismatch', 'the server share changed since you read it; fetch it again') : shareNotFound();
      });
    },
  };
}
