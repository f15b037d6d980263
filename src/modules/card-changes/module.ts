import { defineModule } from '../../platform/module.js';
import { cardChangeLog } from './migrations/018-card-change-log.js';
import { cardEdits } from './migrations/019-card-edits.js';
import { concerningStatements } from './statements.js';
import { cardChangeLogQueries } from './queries.js';
import { createCardChangeService } from './service.js';
import type { CardChangeService } from './service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    cardChanges: CardChangeService;
  }
}

/**
 * The card-change log (decisions 180, 220): when what a follower sees of a card changed, as
 * positions. The read side's source: the signal feed and its streams (signals), and the address
 * book's sync (address-book) read it; wiring.ts names its writers, read-side.ts its readers.
 */
export const cardChangesModule = defineModule({
  name: 'card-changes',
  migrations: { '018-card-change-log': cardChangeLog, '019-card-edits': cardEdits },
  build({ clock, store, accountData }, { contacts }) {
    const concerning = concerningStatements(store.handle, contacts);
    const changes = createCardChangeService({ db: store.repository({ cardChanges: cardChangeLogQueries }), concerning, clock, contacts });
    accountData.declare('card-changes', {
      tables: {
        card_change_log: { leftOut: 'bookkeeping for address-book sync: which account ids saw a card change, and when; no card content' },
        card_change_log_head: { leftOut: 'one counter for the whole service, about no account' },
      },
    });
    return { provides: { cardChanges: changes } };
  },
});
