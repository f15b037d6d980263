import { defineModule } from '../../platform/module.js';
import { OPERATIONS } from './operations.js';
import { keys as keysMigration } from './migrations/009-keys.js';
import { keyBundleQueries, keyShareQueries } from './queries.js';
import { keyRoutes } from './routes.js';
import { ContactKeySchema, ExportedKeyBundle, KeyBundleSchema, KeyShareSchema } from './schemas.js';
import { createKeyService } from './service.js';
import type { KeyService } from './service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    keys: KeyService;
  }
}

/**
 * Keys (PRODUCT §7): key material clients make and the server keeps without reading: a bundle
 * per passkey that active contacts read, and the account's server share of a split secret.
 * Built after methods (a bundle follows its passkey) and contacts (whose subscriptions say who
 * reads bundles); neither knows of it.
 */
export const keysModule = defineModule({
  name: 'keys',
  operations: OPERATIONS,
  migrations: { '009-keys': keysMigration },
  schemas: [KeyBundleSchema, ContactKeySchema, KeyShareSchema],
  tags: [{ name: 'keys', description: 'Key material the server keeps and never reads: device bundles for your contacts, the server share of your secret' }],
  build({ clock, store, accountData }, { contacts }) {
    // Who may read a contact's keys is who may read its card: the contacts' audience rule.
    const keys = createKeyService({ db: store.repository({ bundles: keyBundleQueries, shares: keyShareQueries }), clock, shownOwner: contacts.shownOwner, activeSubscribersOf: contacts.activeSubscribersOf });
    accountData.declare('keys', {
      tables: {
        key_bundles: { exported: 'key_bundles' },
        key_shares: { leftOut: 'the server share of a split secret is a secret; exporting it beside the client shares would defeat the split' },
      },
      sections: [{ name: 'key_bundles', description: 'Your devices\' key bundles, as you stored them (opaque)', kind: 'list', item: ExportedKeyBundle, pages: keys.exportPages }],
      erase: keys.erase,
    });
    return { provides: { keys }, routes: (app) => keyRoutes(app, { keys }) };
  },
});
