import { defineModule } from '../../platform/module.js';
import { OPERATIONS } from './operations.js';
import { davSetupLinks as davSetupLinksMigration } from './migrations/026-dav-setup-links.js';
import { davSetupLinkQueries } from './queries.js';
import { davSetupLinkRoutes } from './routes.js';
import { CreatedSetupLinkSchema, ExportedSetupLink, RedeemedSetupLinkSchema, SetupLinkSchema } from './schemas.js';
import { createDavSetupLinkService } from './service.js';
import type { DavSetupLinkService } from './service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    davSetupLinks: DavSetupLinkService;
  }
}

/**
 * Setup links (PRODUCT §9, decision 300): a QR code or a short code that carries a new
 * address-book password to a phone, through the `davTokens` service's `issue`.
 */
export const davSetupLinksModule = defineModule({
  name: 'dav-setup-links',
  operations: OPERATIONS,
  migrations: { '026-dav-setup-links': davSetupLinksMigration },
  schemas: [CreatedSetupLinkSchema, SetupLinkSchema, RedeemedSetupLinkSchema],
  build({ config, clock, store, subkeys, accountData }, { davTokens }) {
    const links = createDavSetupLinkService({
      db: store.repository({ links: davSetupLinkQueries }),
      clock,
      keys: subkeys('dav-setup-links'),
      publicOrigin: config.publicOrigin,
      davTokens,
    });
    accountData.declare('dav-setup-links', {
      tables: { dav_setup_links: { exported: 'dav_setup_links', withheld: { columns: ['token_hash', 'code_hash'], reason: 'keyed hashes of a live link\'s token and code: whoever could test guesses against them could find a link' } } },
      sections: [{ name: 'dav_setup_links', description: 'Links you made to set up a phone: dates and which password each made, not the links', kind: 'list', item: ExportedSetupLink, pages: links.exportPages }],
      erase: links.erase,
    });
    return {
      provides: { davSetupLinks: links },
      routes: (app) => davSetupLinkRoutes(app, { links }),
      prune: (now) => links.prune(now),
    };
  },
});
