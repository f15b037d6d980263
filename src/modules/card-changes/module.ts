import { defineModule } from '../../platform/module.js';
import { cardChangeLog } from './migrations/018-card-change-log.js';
import { cardEdits } from './migrations/019-card-edits.js';
import { concerningStatements } from './statements.js';
import { cardChangeLogQueries } from './queries.js';
import { cardChangePending } from './migrations/027-card-change-pending.js';
import { createSequencer } from './sequencer.js';
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
/** How often a PostgreSQL node looks for changes left without a position. */
const SWEEP_MS = 5_000;

export const cardChangesModule = defineModule({
  name: 'card-changes',
  migrations: { '018-card-change-log': cardChangeLog, '019-card-edits': cardEdits, '027-card-change-pending': cardChangePending },
  build({ clock, store, accountData, warn, config }, { contacts }) {
    const db = store.repository({ cardChanges: cardChangeLogQueries });
    const concerning = concerningStatements(store.handle, contacts);
    const sequencer = createSequencer({ db, warn });
    const { withoutCardChangeLog } = config.benchmark;
    const changes = createCardChangeService({ db, concerning, clock, contacts, sequencer, withoutLog: withoutCardChangeLog });
    accountData.declare('card-changes', {
      tables: {
        card_change_log: { leftOut: 'bookkeeping for address-book sync: which account ids saw a card change, and when; no card content' },
        card_change_log_head: { leftOut: 'one counter for the whole service, about no account' },
        card_change_pending: { leftOut: 'the same bookkeeping for a moment, until a change has its position in card_change_log' },
      },
    });
    // PostgreSQL: what a node that stopped between a commit and its sequencer's run left pending.
    let sweeping: ReturnType<typeof setInterval> | undefined;
    return {
      provides: { cardChanges: changes },
      start() {
        if (withoutCardChangeLog) warn(undefined, 'BENCH_WITHOUT_CARD_CHANGE_LOG is set: card changes write no rows of the card-change log, so followers miss every change (the capacity benchmark\'s limit only; never in production)');
        if (store.dialect !== 'postgres') return;
        const sweep = () => void sequencer.sweep().catch((error) => warn(error, 'sweeping pending card changes'));
        sweep();
        sweeping = setInterval(sweep, SWEEP_MS);
        sweeping.unref();
      },
      stop: () => clearInterval(sweeping),
    };
  },
});
