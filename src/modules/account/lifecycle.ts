import type { AuthContext } from '../../platform/caller.js';
import type { LocatedClient } from '../../platform/client-info.js';
import type { Clock } from '../../platform/clock.js';
import { refuse } from '../../platform/errors.js';
import { signal } from '../../platform/signals/signal.js';
import type { RepositoryOf } from '../../platform/store/store.js';
import type { SubscriptionService } from '../contacts/subscriptions.js';
import type { MeService, MeView } from '../me/service.js';
import type { SecurityLog } from '../security-log/service.js';
import type { SessionService } from '../sessions/service.js';
import type { lifecycleQueries } from './queries.js';

const DAY_MS = 86_400_000;

export interface AccountDeletion {
  status: 'deleted';
  deleted_at: string;
  purge_at: string;
  schema_version: 1;
}

export interface DeletionTerms {
  grace_days: number;
  username_hold_days: number;
  schema_version: 1;
}

/**
 * Leaving and coming back (PRODUCT §8). Deleting changes one column of the account row: every
 * route, card and link that must go quiet reads that column, so restoring is the same column
 * cleared and everything is exactly as it was. Only the other sessions stay revoked.
 */
export function createLifecycleService(deps: {
  db: RepositoryOf<{ lifecycle: typeof lifecycleQueries }>;
  clock: Clock;
  graceDays: number;
  usernameHoldDays: number;
  sessions: SessionService;
  subscriptions: SubscriptionService;
  securityLog: SecurityLog;
  me: MeService;
}) {
  const { db, clock } = deps;
  const iso = (t: number) => new Date(t).toISOString();

  return {
    /** This server's grace and hold, so a person is told the real dates before deciding. */
    terms(): DeletionTerms {
      return { grace_days: deps.graceDays, username_hold_days: deps.usernameHoldDays, schema_version: 1 };
    },

    /** DELETE /account: restorable until purge_at; other devices signed out, subscribers told. */
    async remove(auth: AuthContext, client: LocatedClient): Promise<AccountDeletion> {
      const now = clock.now();
      const purgeAt = now + deps.graceDays * DAY_MS;
      await db.transaction(async (q, tx) => {
        const deleted = await q.lifecycle.markDeleted(auth.account.id, now, purgeAt);
        if (!deleted) throw refuse('account_deleted', 'this account is deleted already');
        await deps.sessions.revokeOthersIn(tx, auth);
        await deps.subscriptions.ownerAvailabilityChanged(tx, auth.account.id);
        await signal(tx, auth.account.id, 'account.changed');
        await deps.securityLog.record(tx, auth.account.id, 'account_deleted', client);
      });
      return { status: 'deleted', deleted_at: iso(now), purge_at: iso(purgeAt), schema_version: 1 };
    },

    /** POST /account/undelete: everything as it was; subscribers see the contact come back. */
    async restore(auth: AuthContext, client: LocatedClient): Promise<MeView> {
      const account = await db.transaction(async (q, tx) => {
        const restored = await q.lifecycle.markRestored(auth.account.id);
        if (!restored) throw refuse('account_not_deleted', 'this account is not deleted');
        await deps.subscriptions.ownerAvailabilityChanged(tx, auth.account.id);
        await signal(tx, auth.account.id, 'account.changed');
        await deps.securityLog.record(tx, auth.account.id, 'account_restored', client);
        return restored;
      });
      return deps.me.view(account);
    },
  };
}

export type LifecycleService = ReturnType<typeof createLifecycleService>;
