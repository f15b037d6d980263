import type { ExportSection } from '../../platform/account-data.js';
import type { LocatedClient } from '../../platform/client-info.js';
import type { Clock } from '../../platform/clock.js';
import { refuse } from '../../platform/errors.js';
import { signal } from '../../platform/signals/signal.js';
import type { AccountRecord } from '../../platform/store/accounts.js';
import type { RepositoryOf } from '../../platform/store/store.js';
import type { SubscriptionService } from '../contacts/subscriptions.js';
import type { SecurityLog } from '../security-log/service.js';
import type { SessionService } from '../sessions/service.js';
import type { lifecycleQueries } from './queries.js';

/** What the security log shows as the client of an operator's act: no address, the tool's name. */
export const OPERATOR: LocatedClient = { ip: '', userAgent: 'VID operator (npm run admin)', location: null };

const REASON_MAX = 500;

export type AccountStatus = 'active' | 'deleted' | 'locked' | 'purged';

/** What `npm run admin -- show` prints: state, sessions and methods, never a secret. */
export interface AccountReport {
  id: string;
  username: string;
  status: AccountStatus;
  created_at: string;
  locked_at: string | null;
  lock_reason: string | null;
  deleted_at: string | null;
  purge_at: string | null;
  sessions: unknown[];
  passkeys: unknown[];
  totp: unknown[];
}

/**
 * Account locks (decision 090): an operator stops an abusive or compromised account at once.
 * One column of the account row, read by the lookup every request already makes; the lock
 * revokes every session in its own transaction, so nothing the account holds works after it
 * commits, on any node. Unlocking clears the column; the revoked sessions stay revoked.
 */
export function createLockService(deps: {
  db: RepositoryOf<{ lifecycle: typeof lifecycleQueries }>;
  clock: Clock;
  findByUsername(username: string): Promise<AccountRecord | undefined>;
  sessions: SessionService;
  subscriptions: SubscriptionService;
  securityLog: SecurityLog;
  sections(): readonly ExportSection[];
}) {
  const { db, clock } = deps;
  const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

  async function account(username: string): Promise<AccountRecord> {
    const found = await deps.findByUsername(username);
    if (!found || found.purged_at !== null) throw refuse('account_not_found', `nobody has the username ${JSON.stringify(username)}`);
    return found;
  }

  /** The rows of one export section, all pages (a person's sessions and methods are few). */
  async function rowsOf(name: string, accountId: string): Promise<unknown[]> {
    const section = deps.sections().find((s) => s.name === name);
    if (!section || section.kind !== 'list') throw new Error(`the export has no list section ${name}`);
    const rows: unknown[] = [];
    for await (const page of section.pages(accountId)) rows.push(...page);
    return rows;
  }

  return {
    async lock(username: string, reason: string): Promise<{ sessions_revoked: number }> {
      const why = reason.trim();
      if (!why || why.length > REASON_MAX) throw refuse('validation_failed', `give a reason of 1 to ${REASON_MAX} characters (--reason "…")`);
      const target = await account(username);
      return db.transaction(async (q, tx) => {
        const locked = await q.lifecycle.markLocked(target.id, clock.now(), why);
        if (!locked) throw refuse('account_locked', 'this account is locked already');
        const revoked = await deps.sessions.revokeAllForLockIn(tx, target.id);
        // Subscribers see the contact as unavailable; the account's own devices are told.
        await deps.subscriptions.ownerAvailabilityChanged(tx, target.id);
        await signal(tx, target.id, 'account.changed');
        await deps.securityLog.record(tx, target.id, 'account_locked', OPERATOR);
        return { sessions_revoked: revoked };
      });
    },

    async unlock(username: string): Promise<void> {
      const target = await account(username);
      await db.transaction(async (q, tx) => {
        const unlocked = await q.lifecycle.markUnlocked(target.id);
        if (!unlocked) throw refuse('account_not_locked', 'this account is not locked');
        await deps.subscriptions.ownerAvailabilityChanged(tx, target.id);
        await signal(tx, target.id, 'account.changed');
        await deps.securityLog.record(tx, target.id, 'account_unlocked', OPERATOR);
      });
    },

    async show(username: string): Promise<AccountReport> {
      const target = await account(username);
      const status: AccountStatus = target.locked_at !== null ? 'locked' : target.deleted_at !== null ? 'deleted' : 'active';
      const sessions = (await rowsOf('sessions', target.id)).filter((s) => (s as { revoked_at: string | null }).revoked_at === null);
      return {
        id: target.id,
        username: target.username,
        status,
        created_at: iso(target.created_at)!,
        locked_at: iso(target.locked_at),
        lock_reason: target.lock_reason,
        deleted_at: iso(target.deleted_at),
        purge_at: iso(target.purge_at),
        sessions,
        passkeys: await rowsOf('passkeys', target.id),
        totp: await rowsOf('totp', target.id),
      };
    },
  };
}

export type LockService = ReturnType<typeof createLockService>;
