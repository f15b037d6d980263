import { ref } from '../../platform/http/schemas.js';
import { defineModule } from '../../platform/module.js';
import { OPERATIONS } from './operations.js';
import { accountQueries } from '../../platform/store/accounts.js';
import { MeSchema } from '../me/schemas.js';
import { exportDocument, exportSections } from './export.js';
import { createLifecycleService } from './lifecycle.js';
import type { LifecycleService } from './lifecycle.js';
import { lifecycle as lifecycleMigration } from './migrations/010-lifecycle.js';
import { accountLocks } from './migrations/012-account-locks.js';
import { createLockService } from './locks.js';
import type { LockService } from './locks.js';
import { createPurge } from './purge.js';
import type { Purge } from './purge.js';
import { lifecycleQueries } from './queries.js';
import { accountRoutes } from './routes.js';
import { AccountDeletionSchema, DeletionTermsSchema } from './schemas.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    lifecycle: LifecycleService;
    purge: Purge;
    locks: LockService;
  }
}

/**
 * The account lifecycle (PRODUCT §8): export, delete, undelete, and the purge that runs on every
 * node. Listed after every module that holds account data: the export and the purge use what
 * each of them declared (platform/account-data.ts).
 */
export const accountModule = defineModule({
  name: 'account',
  operations: OPERATIONS,
  migrations: { '010-lifecycle': lifecycleMigration, '012-account-locks': accountLocks },
  schemas: [AccountDeletionSchema, DeletionTermsSchema],
  tags: [{ name: 'lifecycle', description: 'Your data and your account: export, delete, restore' }],
  build({ config, clock, store, accountData, warn }, { sessions, subscriptions, securityLog, me, usernames }) {
    const db = store.repository({ lifecycle: lifecycleQueries });
    const accounts = store.use(accountQueries);
    accountData.declare('account', {
      tables: {
        accounts: { exported: 'account', withheld: { columns: ['user_handle'], reason: 'an internal identifier: the user handle your passkeys carry' } },
        events: { leftOut: 'signals carry no data, only which path changed; they expire after 30 days' },
        ceremonies: { leftOut: 'WebAuthn challenges that live for minutes' },
        idempotency_records: { leftOut: 'replays of your own requests from the last 24 hours, sealed' },
        dpop_jtis: { leftOut: 'DPoP proof ids from the last minutes, linked to no account' },
        kysely_migration: { leftOut: 'the database schema\'s version: nothing about you' },
        kysely_migration_lock: { leftOut: 'the database schema\'s version: nothing about you' },
      },
      sections: [{ name: 'account', description: 'Your account as GET /me shows it', kind: 'object', item: ref(MeSchema), read: async (accountId) => me.view((await accounts.findById(accountId))!) }],
      erase: (tx, accountId) => tx.use(lifecycleQueries).removePlatformRows(accountId),
    });
    const lifecycle = createLifecycleService({ db, clock, graceDays: config.lifecycle.graceDays, usernameHoldDays: config.lifecycle.usernameHoldDays, sessions, subscriptions, securityLog, me });
    const purge = createPurge({ db, clock, accountData, usernameHoldDays: config.lifecycle.usernameHoldDays, warn });
    const locks = createLockService({
      db, clock, sessions, subscriptions, securityLog,
      findByUsername: async (username) => {
        const canonical = usernames.canonicalOf(username);
        return canonical === undefined ? undefined : accounts.findByCanonical(canonical);
      },
      sections: () => exportSections(accountData),
    });
    return {
      provides: { lifecycle, purge, locks },
      // The routes are registered after every module is built: the export sees all sections.
      routes: (app) => accountRoutes(app, { lifecycle, sections: exportSections(accountData), exportDocument: (accountId) => exportDocument(accountData, clock, accountId) }),
      // Every node runs it with the minute's housekeeping; claims keep them from purging one account twice.
      prune: (now) => purge.run(now),
    };
  },
});
