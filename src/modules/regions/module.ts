import { defineModule } from '../../platform/module.js';
import { createRegionRequestVerifier } from '../../platform/federation/verifier.js';
import { regions as regionsMigration } from './migrations/029-regions.js';
import { nonceQueries, outboxQueries, standInQueries } from './queries.js';
import { regionRoutes } from './routes.js';
import { createSender } from './sender.js';
import { createRegionService } from './service.js';
import type { RegionService } from './service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    regions: RegionService & { flush(): Promise<void>; stats(): { requests: number; deliveries: number; failures: number } };
  }
}

/** One operator's regions as a closed federation (PRODUCT §10, decision 352): following across, and the server-to-server API. */
export const regionsModule = defineModule({
  name: 'regions',
  migrations: { '029-regions': regionsMigration },
  build({ config, clock, store, metrics, warn, accountData }, { remoteContacts, subscriptions, profiles, usernames }) {
    const db = store.repository({ outbox: outboxQueries, nonces: nonceQueries, people: standInQueries });
    let sender: ReturnType<typeof createSender> | undefined;
    const service = createRegionService({
      db,
      clock,
      regions: config.regions,
      canonicalOf: usernames.canonicalOf,
      remote: remoteContacts,
      subscriptions,
      cards: profiles,
      call: (region, path, body) => sender!.call(region, path, body),
      kick: (region) => sender?.kick(region),
    });
    sender = createSender({ db, regions: config.regions, now: clock.now, deliveriesOf: service.deliveriesOf, heard: service.heard, readHeard: service.readHeard, warn, metrics });
    const verify = createRegionRequestVerifier({ regions: config.regions, nonces: { firstUse: (region, nonce, expiresAt) => db.direct.nonces.firstUse(region, nonce, expiresAt) }, metrics, now: clock.now });
    const running = sender;
    accountData.declare('regions', {
      tables: {
        region_outbox: { leftOut: 'what this region still has to tell the operator\'s other regions: ids of changed subscriptions, cards and accounts (a purged account\'s username), each row gone once that region has it' },
        region_nonces: { leftOut: 'one-time values of signed requests between the operator\'s regions, about no account, kept until each signature expires' },
        region_peers: { leftOut: 'when each of the operator\'s other regions was last heard from, about no account' },
      },
      // Runs before the contacts' eraser ends the subscriptions (erasers run in reverse module
      // order): every region holding a side of one hears the account is gone and drops its stand-in.
      erase: (tx, accountId) => service.purging(tx, accountId),
    });
    return {
      provides: { regions: { ...service, flush: running.flush, stats: running.stats } },
      rootRoutes: config.regions.peers.length === 0 ? undefined : (app) => regionRoutes(app, { service, publicOrigin: config.publicOrigin, verify }),
      start: () => running.start(),
      stop: () => running.stop(),
      prune: (now) => db.direct.nonces.prune(now),
    };
  },
});
