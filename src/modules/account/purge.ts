import { randomBytes } from 'node:crypto';
import { setTimeout as pause } from 'node:timers/promises';
import type { AccountData } from '../../platform/account-data.js';
import type { Clock } from '../../platform/clock.js';
import type { RepositoryOf } from '../../platform/store/store.js';
import type { lifecycleQueries } from './queries.js';

const DAY_MS = 86_400_000;
/** Accounts claimed per read of what is due: each is purged in its own short transaction. */
const BATCH = 50;

export interface PurgeRun {
  /** Accounts this run purged (another node may have taken others). */
  purged: number;
  /** Usernames freed because their hold ended. */
  released: number;
  /** Accounts whose purge failed (rolled back; the next run tries again). */
  failed: number;
}

/**
 * The purge (PRODUCT §8): after the grace, every module erases what it holds about the account
 * (its declared eraser), in one transaction per account that begins by claiming the account's
 * row, so several nodes running it at once purge each account exactly once. Between accounts
 * the loop rests as long as the last account took, so requests keep at least half of the node
 * while a thousand accounts are purged (`npm run bench -- purge` measures their p99).
 */
export function createPurge(deps: {
  db: RepositoryOf<{ lifecycle: typeof lifecycleQueries }>;
  clock: Clock;
  accountData: AccountData;
  usernameHoldDays: number;
  warn(error: unknown, what: string): void;
}) {
  const { db } = deps;

  async function purgeOne(accountId: string, now: number): Promise<boolean> {
    return db.transaction(async (q, tx) => {
      const holdUntil = now + deps.usernameHoldDays * DAY_MS;
      // A fresh WebAuthn user handle: the old one lives on in authenticators, and must lead nowhere.
      if (!(await q.lifecycle.claimForPurge(accountId, now, holdUntil, randomBytes(32).toString('base64url')))) return false;
      for (const { erase } of deps.accountData.erasers()) await erase(tx, accountId);
      return true;
    });
  }

  return {
    purgeOne,
    /** Purges every account due at `now`, then frees the usernames whose hold is over. */
    async run(now = deps.clock.now()): Promise<PurgeRun> {
      let purged = 0;
      let failed = 0;
      // Each account once per run: one that fails is left for the next run, not retried in a loop.
      const tried = new Set<string>();
      for (;;) {
        const due = (await db.direct.lifecycle.dueForPurge(now, BATCH + tried.size)).filter((id) => !tried.has(id));
        if (due.length === 0) break;
        for (const id of due) {
          tried.add(id);
          const started = performance.now();
          try {
            if (await purgeOne(id, now)) purged++;
          } catch (error) {
            failed++;
            deps.warn(error, `purge of account ${id} failed`);
          }
          // Paced: after each account the purge rests as long as that account took, so requests
          // keep at least half of the node's time (the purge is due within a minute, not at once).
          await pause(performance.now() - started);
        }
      }
      const released = await db.direct.lifecycle.releaseHolds(now);
      return { purged, released, failed };
    },
  };
}

export type Purge = ReturnType<typeof createPurge>;
