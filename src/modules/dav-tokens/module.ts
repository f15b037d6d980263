import { defineModule } from '../../platform/module.js';
import { OPERATIONS } from './operations.js';
import { davTokens as davTokensMigration } from './migrations/014-dav-tokens.js';
import { davTokenQueries } from './queries.js';
import { davTokenRoutes } from './routes.js';
import { CreatedDavTokenSchema, DavTokenSchema, ExportedDavToken } from './schemas.js';
import { createDavTokenService } from './service.js';
import type { DavTokenService } from './service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    davTokens: DavTokenService;
  }
}

/**
 * Address-book passwords (PRODUCT §9, decision 150): what phone and desktop address books sign
 * in with (HTTP Basic) under /dav/. The CardDAV routes authenticate every request through the
 * `davTokens` service this provides.
 */
export const davTokensModule = defineModule({
  name: 'dav-tokens',
  operations: OPERATIONS,
  migrations: { '014-dav-tokens': davTokensMigration },
  schemas: [DavTokenSchema, CreatedDavTokenSchema],
  tags: [{ name: 'address-books', description: 'Address-book passwords: let a phone or desktop address book read the people you follow (CardDAV)' }],
  build({ config, clock, store, subkeys, limiter, accountData, warn }, { securityLog, usernames }) {
    const tokens = createDavTokenService({
      db: store.repository({ tokens: davTokenQueries }),
      clock,
      tokenKeys: subkeys('dav-token-passwords'),
      publicOrigin: config.publicOrigin,
      securityLog,
      canonicalOf: usernames.canonicalOf,
      limiter,
      failureLimits: config.authFailures,
      warn,
    });
    accountData.declare('dav-tokens', {
      tables: { dav_tokens: { exported: 'dav_tokens', withheld: { columns: ['secret_hash'], reason: 'a keyed hash of the password: whoever could test guesses against it could try to find the password' } } },
      sections: [{ name: 'dav_tokens', description: 'Your address-book passwords: names, dates and last use, not the passwords', kind: 'list', item: ExportedDavToken, pages: tokens.exportPages }],
      erase: tokens.erase,
    });
    return {
      provides: { davTokens: tokens },
      routes: (app) => davTokenRoutes(app, { tokens }),
      prune: async (now) => tokens.prune(now),
    };
  },
});
