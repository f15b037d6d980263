import { defineModule } from '../../platform/module.js';
import { createDavHandler } from './dav.js';
import { addressBookRoutes } from './routes.js';
import { createAddressBookService } from './service.js';
import type { AddressBookService } from './service.js';
import { syncTokens } from './sync-token.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    addressBook: AddressBookService;
  }
}

/**
 * The read-only CardDAV address book "People I follow" (PRODUCT §9, CARDDAV.md, docs/carddav.md),
 * synced from the card-change log (card-changes, decision 180). Its routes live outside /api/v1,
 * under /dav/ and /.well-known/carddav, and sign in with the address-book passwords (dav-tokens).
 */
export const addressBookModule = defineModule({
  name: 'address-book',
  build({ config, rateLimits }, { contacts, davTokens, cardChanges }) {
    const book = createAddressBookService({ changes: cardChanges, contacts });
    const handle = createDavHandler({ book, tokens: syncTokens(config.publicOrigin) });
    return {
      provides: { addressBook: book },
      rootRoutes: (app) => addressBookRoutes(app, { handle, authenticate: davTokens.authenticate, rateLimits, publicOrigin: config.publicOrigin }),
    };
  },
});
