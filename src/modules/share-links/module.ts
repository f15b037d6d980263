import { defineModule } from '../../platform/module.js';
import { OPERATIONS } from './operations.js';
import { shareLinks as shareLinksMigration } from './migrations/008-share-links.js';
import { shareLinkLabels } from './migrations/021-share-link-labels.js';
import { shareLinkQueries } from './queries.js';
import { shareLinkRoutes } from './routes.js';
import { ExportedShareLink, ShareLinkSchema } from './schemas.js';
import { createShareLinkService, SHARE_LINK_SEAL_PURPOSE } from './service.js';
import type { ShareLinkService } from './service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    shareLinks: ShareLinkService;
  }
}

/** Share links: a QR code or link that lets someone subscribe to one profile (PRODUCT §6). */
export const shareLinksModule = defineModule({
  name: 'share-links',
  operations: OPERATIONS,
  migrations: { '008-share-links': shareLinksMigration, '021-share-link-labels': shareLinkLabels },
  schemas: [ShareLinkSchema],
  tags: [{ name: 'sharing', description: 'Share links: let someone subscribe by QR code or link' }],
  build({ config, clock, store, box, subkeys, sealed, accountData }, { profiles, subscriptions, contacts }) {
    const links = createShareLinkService({
      db: store.repository({ links: shareLinkQueries }),
      clock,
      box,
      tokenKeys: subkeys('share-link-tokens'),
      publicOrigin: config.publicOrigin,
      subscriptions,
      holdsProfile: profiles.holds,
    });
    sealed.declare({ table: 'share_links', key: ['id'], column: 'token_sealed', purpose: SHARE_LINK_SEAL_PURPOSE, hash: { column: 'token_hash', of: links.tokenHash } });
    accountData.declare('share-links', {
      tables: { share_links: { exported: 'share_links', withheld: { columns: ['token_hash', 'token_sealed'], reason: 'whoever holds a link token may subscribe to you' } } },
      sections: [{ name: 'share_links', description: 'Your share links, without their tokens', kind: 'list', item: ExportedShareLink, pages: links.exportPages }],
      erase: links.erase,
    });
    return { provides: { shareLinks: links }, routes: (app) => shareLinkRoutes(app, { links, contacts }) };
  },
});
