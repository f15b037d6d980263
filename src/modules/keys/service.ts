import type { Tx } from '../../platform/store/store.js';
import { createKeyBundles } from './bundles.js';
import type { KeyDeps } from './material.js';
import { createKeyShare } from './share.js';

export { bundleView } from './material.js';
export type { ContactKeyView, KeyBundleView, KeyDeps, KeyShareView } from './material.js';

/**
 * Keys (PRODUCT §7): key material clients make and the server keeps without reading. Each
 * passkey (device) may hold one bundle, which the owner's active contacts read; the account may
 * hold the server's share of a split secret, which only the owner reads, with a step-up. Every
 * change tells the owner's devices (keys.changed); a bundle change also tells every active
 * subscriber (contact.keys.changed), in one set-based write in the change's transaction.
 */
export function createKeyService(deps: KeyDeps) {
  const bundles = createKeyBundles(deps);
  return {
    devices: bundles.devices,
    contactKeys: bundles.contactKeys,
    share: createKeyShare(deps),
    passkeyRemoving: bundles.passkeyRemoving,
    exportPages: bundles.exportPages,

    /**
     * The purge (PRODUCT §8): both tables' rows of the account. No signal: the contacts module
     * ends every subscription in the same transaction and tells the other side.
     */
    async erase(tx: Tx, accountId: string): Promise<void> {
      const q = deps.db.in(tx);
      await q.bundles.removeAll(accountId);
      await q.shares.removeAll(accountId);
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
