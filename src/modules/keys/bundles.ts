import type { AuthContext } from '../../platform/caller.js';
import { refuse } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { signal, signalSelected } from '../../platform/signals/signal.js';
import { decodeCursor, keysetPages, page, toPage } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import { uniqueViolation } from '../../platform/store/store.js';
import type { Tx } from '../../platform/store/store.js';
import type { PasskeyRemoval } from '../methods/passkeys.js';
import { bundleNotFound, bundleView, iso, methodNotFound, opaque, Unchanged } from './material.js';
import type { ContactKeyView, KeyBundleView, KeyDeps } from './material.js';
import type { KeyBundleRecord } from './queries.js';

/**
 * Device bundles: each passkey's, which its owner writes and the owner's active contacts read.
 * Every change tells the owner's devices (keys.changed) and every active subscriber
 * (contact.keys.changed), in one set-based write in the change's transaction.
 */
export function createKeyBundles(deps: KeyDeps) {
  const { db, clock } = deps;

  /**
   * The owner's devices are told first: that takes the account's lock (PostgreSQL), so a
   * concurrent removal of the passkey or another change of the same keys waits, and what is read
   * after it stays true until commit. A refusal rolls the signal back with everything else.
   */
  const tellOwner = (tx: Tx, accountId: string) => signal(tx, accountId, 'keys.changed');
  /** Everyone who sees the owner now hears of it: one set-based write, after the change is made. */
  const tellSubscribers = (tx: Tx, accountId: string) => signalSelected(tx, deps.activeSubscribersOf(tx, accountId), 'contact.keys.changed');

  return {
    devices: {
      async list(auth: AuthContext, cursor: string | undefined, limit: number): Promise<Page<KeyBundleView>> {
        return page((after, size) => db.direct.bundles.page(auth.account.id, after, size), cursor, limit, bundleView);
      },

      async get(auth: AuthContext, methodId: string): Promise<KeyBundleView> {
        const row = await db.direct.bundles.find(auth.account.id, methodId);
        if (row) return bundleView(row);
        throw (await db.direct.bundles.ownsMethod(auth.account.id, methodId)) ? bundleNotFound() : methodNotFound();
      },

      /**
       * PUT: creates without If-Match (201), then needs it (428 without, 412 when stale). The
       * same bundle again changes nothing and tells nobody.
       */
      async put(auth: AuthContext, methodId: string, expectedVersion: number | undefined, input: string): Promise<{ created: boolean; bundle: KeyBundleView }> {
        const accountId = auth.account.id;
        const bundle = opaque(input, 'invalid_key_bundle', '/bundle');
        try {
          return await db.transaction(async (q, tx) => {
            await tellOwner(tx, accountId);
            if (!(await q.bundles.ownsMethod(accountId, methodId))) throw methodNotFound();
            const current = await q.bundles.find(accountId, methodId);
            const now = clock.now();
            let row: KeyBundleRecord | undefined;
            if (!current) {
              if (expectedVersion !== undefined) throw refuse('version_mismatch', 'this passkey has no key bundle yet: send the first PUT without If-Match');
              row = { id: newId('key'), account_id: accountId, method_id: methodId, bundle, version: 1, created_at: now, updated_at: now };
              await q.bundles.insert(row);
            } else {
              if (expectedVersion === undefined) throw refuse('precondition_required', 'this passkey has a key bundle: send If-Match with the ETag you last read');
              if (expectedVersion !== current.version) throw refuse('version_mismatch', 'the key bundle changed since you read it; fetch it again');
              if (current.bundle === bundle) throw new Unchanged(bundleView(current));
              row = await q.bundles.update(accountId, methodId, expectedVersion, bundle, now);
              if (!row) throw refuse('version_mismatch', 'the key bundle changed since you read it; fetch it again');
            }
            await tellSubscribers(tx, accountId);
            return { created: !current, bundle: bundleView(row) };
          });
        } catch (error) {
          if (error instanceof Unchanged) return { created: false, bundle: error.view as KeyBundleView };
          // Two first PUTs raced: the other one created it, so this one needed If-Match.
          if (uniqueViolation(error)) throw refuse('precondition_required', 'this passkey has a key bundle now: send If-Match with the ETag you read');
          throw error;
        }
      },

      async remove(auth: AuthContext, methodId: string, expectedVersion: number): Promise<void> {
        const accountId = auth.account.id;
        await db.transaction(async (q, tx) => {
          await tellOwner(tx, accountId);
          if (await q.bundles.remove(accountId, methodId, expectedVersion)) return void (await tellSubscribers(tx, accountId));
          if (await q.bundles.find(accountId, methodId)) throw refuse('version_mismatch', 'the key bundle changed since you read it; fetch it again');
          throw (await q.bundles.ownsMethod(accountId, methodId)) ? bundleNotFound() : methodNotFound();
        });
      },
    },

    /**
     * GET /contacts/{id}/keys: the bundles of an active contact's owner, under their opaque ids.
     * Whoever sees the card sees the keys: the contacts' audience rule decides, with its refusals.
     */
    async contactKeys(auth: AuthContext, contactId: string, cursor: string | undefined, limit: number): Promise<Page<ContactKeyView>> {
      const after = decodeCursor(cursor);
      const ownerId = await deps.shownOwner(auth.account.id, contactId, 'keys');
      const rows = await db.direct.bundles.page(ownerId, after, limit + 1);
      return toPage(rows, limit, (row) => ({ id: row.id, bundle: row.bundle, updated_at: iso(row.updated_at) }));
    },

    /**
     * A passkey is being removed (methods module, in its transaction): its bundle goes now, so
     * the owner's devices and the active subscribers hear of it in that same transaction. (The
     * foreign key would remove it too, silently: that is the purge's way, where nobody is left
     * to tell.)
     */
    async passkeyRemoving(tx: Tx, removal: PasskeyRemoval): Promise<void> {
      if (!(await db.in(tx).bundles.remove(removal.accountId, removal.methodId))) return;
      await tellOwner(tx, removal.accountId);
      await tellSubscribers(tx, removal.accountId);
    },

    /** The account's bundles, oldest first (the account export). */
    async *exportPages(accountId: string): AsyncIterable<object[]> {
      for await (const rows of keysetPages((after, limit) => db.direct.bundles.page(accountId, after, limit), (row) => row)) {
        yield rows.map((row) => ({ method_id: row.method_id, bundle: row.bundle, created_at: iso(row.created_at), updated_at: iso(row.updated_at), version: row.version }));
      }
    },
  };
}
