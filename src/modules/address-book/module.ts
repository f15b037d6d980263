import { defineModule } from '../../platform/module.js';
import { createDavHandler } from './dav.js';
import { cardChangeLog } from './migrations/018-card-change-log.js';
import { cardEdits } from './migrations/019-card-edits.js';
import { cardChangeLogQueries, cardEditStatements } from './queries.js';
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
 * The read-only CardDAV address book "People I follow" (PRODUCT §9, CARDDAV.md, docs/carddav.md)
 * and the card-change log it syncs from (decision 180). Its routes live outside /api/v1, under
 * /dav/ and /.well-known/carddav, and sign in with the address-book passwords (dav-tokens).
 */
export const addressBookModule = defineModule({
  name: 'address-book',
  migrations: { '018-card-change-log': cardChangeLog, '019-card-edits': cardEdits },
  build({ config, clock, store, accountData, rateLimits }, { contacts, davTokens }) {
    const edits = cardEditStatements(store.handle, (subscriberId) => contacts.receivedContact(subscriberId));
    const book = createAddressBookService({ db: store.repository({ cardChanges: cardChangeLogQueries }), edits, clock, contacts });
    const handle = createDavHandler({ book, tokens: syncTokens(config.publicOrigin) });
    accountData.declare('address-book', {
      tables: {
        card_change_log: { leftOut: 'bookkeeping for address-book sync: which account ids saw a card change, and when; no card content' },
        card_change_log_head: { leftOut: 'one counter for the whole service, about no account' },
      },
    });
    return {
      provides: { addressBook: book },
      rootRoutes: (app) => addressBookRoutes(app, { handle, authenticate: davTokens.authenticate, rateLimits, publicOrigin: config.publicOrigin }),
    };
  },
});
