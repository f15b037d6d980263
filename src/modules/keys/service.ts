import type { SelectQueryBuilder } from 'kysely';
import type { AuthContext } from '../../platform/caller.js';
import type { Clock } from '../../platform/clock.js';
import { refuse } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { signal, signalSelected } from '../../platform/signals/signal.js';
import { decodeCursor, keysetPages, page, toPage } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import { uniqueViolation } from '../../platform/store/store.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import type { PasskeyRemoval } from '../methods/passkeys.js';
import type { KeyBundleRecord, keyBundleQueries, KeyShareRecord, keyShareQueries } from './queries.js';
import { KEY_LIMITS } from './schemas.js';

export interface KeyBundleView {
  id: string;
  method_id: string;
  bundle: string;
  created_at: string;
  updated_at: string;
  version: number;
  schema_version: 1;
}

export interface ContactKeyView {
  id: string;
  bundle: string;
  updated_at: string;
}

export interface KeyShareView {
  share: string;
  updated_at: string;
  version: number;
  schema_version: 1;
}

type Repo = RepositoryOf<{ bundles: typeof keyBundleQueries; shares: typeof keyShareQueries }>;

const iso = (t: number) => new Date(t).toISOString();
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * PRODUCT §7: key material is opaque base64url (no padding) of at most 8 KiB. Checked as text
 * only (never decoded, so the server learns nothing of it), and the refusal never echoes it.
 */
function opaque(value: string, code: 'invalid_key_bundle' | 'invalid_key_share', path: string): string {
  const tooLong = value.length > KEY_LIMITS.maxLength;
  if (!tooLong && BASE64URL.test(value)) return value;
  const message = tooLong ? `at most ${KEY_LIMITS.maxLength} characters` : 'base64url only: A-Z a-z 0-9 - _, no padding, not empty';
  throw refuse(code, { detail: `${path}: ${message}`, errors: [{ path, code: tooLong ? 'too_long' : 'not_base64url', message }] });
}

export const bundleView = (row: KeyBundleRecord): KeyBundleView => ({
  id: row.id,
  method_id: row.method_id,
  bundle: row.bundle,
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at),
  version: row.version,
  schema_version: 1,
});

const shareView = (row: KeyShareRecord): KeyShareView => ({ share: row.share, updated_at: iso(row.updated_at), version: row.version, schema_version: 1 });

/**
 * A PUT of what is stored already: the transaction is rolled back (its signals with it) and the
 * current resource answered, since nothing changed that anyone should pull.
 */
class Unchanged extends Error {
  constructor(readonly view: KeyBundleView | KeyShareView) {
    super('unchanged');
  }
}


// Another account's passkey answers like an unknown one, so ids cannot be probed (404, never 403).
const methodNotFound = () => refuse('method_not_found', 'no passkey of yours has this id');
const bundleNotFound = () => refuse('key_bundle_not_found', 'this passkey has no key bundle yet: PUT creates it');
const shareNotFound = () => refuse('key_share_not_found', 'no server share is stored yet: PUT creates it');

/**
 * Keys (PRODUCT §7): key material clients make and the server keeps without reading. Each
 * passkey (device) may hold one bundle, which the owner's active contacts read; the account may
 * hold the server's share of a split secret, which only the owner reads, with a step-up. Every
 * change tells the owner's devices (keys.changed); a bundle change also tells every active
 * subscriber (contact.keys.changed), in one set-based write in the change's transaction.
 */
export function createKeyService(deps: {
  db: Repo;
  clock: Clock;
  /** Whose contact this is, when its keys are the subscriber's to see; else the refusal (the contacts service's audience rule). */
  shownOwner: (subscriberId: string, contactId: string, what: 'keys') => Promise<string>;
  /** Everyone who sees the owner now (active, whichever profile) with their contact ids, as fan-out targets (the contacts service). */
  activeSubscribersOf: (ownerId: string) => SelectQueryBuilder<any, any, { account_id: string; param: string }>;
}) {
  const { db, clock } = deps;

  /**
   * The owner's devices are told first: that takes the account's lock (PostgreSQL), so a
   * concurrent removal of the passkey or another change of the same keys waits, and what is read
   * after it stays true until commit. A refusal rolls the signal back with everything else.
   */
  const tellOwner = (tx: Tx, accountId: string) => signal(tx, accountId, 'keys.changed');
  /** Everyone who sees the owner now hears of it: one set-based write, after the change is made. */
  const tellSubscribers = (tx: Tx, accountId: string) => signalSelected(tx, deps.activeSubscribersOf(accountId), 'contact.keys.changed');

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

    share: {
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

    /**
     * The purge (PRODUCT §8): both tables' rows of the account. No signal: the contacts module
     * ends every subscription in the same transaction and tells the other side.
     */
    async erase(tx: Tx, accountId: string): Promise<void> {
      const q = db.in(tx);
      await q.bundles.removeAll(accountId);
      await q.shares.removeAll(accountId);
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
