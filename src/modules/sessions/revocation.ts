import type { AuthContext } from '../../platform/caller.js';
import type { LocatedClient } from '../../platform/client-info.js';
import { refuse } from '../../platform/errors.js';
import { signal } from '../../platform/signals/signal.js';
import type { Tx } from '../../platform/store/store.js';
import type { SessionDeps } from './session-deps.js';

/** Ending sessions: one, all but the caller's, all for a lock, and logout; each tells the account's devices. */
export function createSessionRevocation(deps: Pick<SessionDeps, 'db' | 'clock' | 'securityLog'>) {
  const { db, clock } = deps;

  /** Revokes a session and tells the account's devices, in the caller's transaction. */
  async function revokeIn(tx: Tx, accountId: string, sessionId: string, now: number): Promise<boolean> {
    const revoked = await db.in(tx).sessions.revoke(accountId, sessionId, now);
    if (revoked) await signal(tx, accountId, 'sessions.changed');
    return revoked;
  }

  return {
    revokeIn,
    /** Signs out every other device of the account, in the caller's transaction (account deletion). */
    async revokeOthersIn(tx: Tx, auth: AuthContext): Promise<void> {
      const revoked = await db.in(tx).sessions.revokeAllBut(auth.account.id, auth.sessionId, clock.now());
      if (revoked > 0) await signal(tx, auth.account.id, 'sessions.changed');
    },
    /** A lock (decision 090): every session of the account revoked, its devices told, in the lock's transaction. */
    async revokeAllForLockIn(tx: Tx, accountId: string): Promise<number> {
      const revoked = await db.in(tx).sessions.revokeAllForLock(accountId, clock.now());
      if (revoked > 0) await signal(tx, accountId, 'sessions.changed');
      return revoked;
    },

    async revoke(auth: AuthContext, sessionId: string, client: LocatedClient): Promise<void> {
      const revoked = await db.transaction(async (_, tx) => {
        const done = await revokeIn(tx, auth.account.id, sessionId, clock.now());
        if (done) await deps.securityLog.record(tx, auth.account.id, 'session_revoked', client);
        return done;
      });
      // Another account's session id answers like an unknown one: ids cannot be probed.
      if (!revoked) throw refuse('session_not_found', 'no live session of yours has this id');
    },

    async logout(auth: AuthContext): Promise<void> {
      await db.transaction((_, tx) => revokeIn(tx, auth.account.id, auth.sessionId, clock.now()));
    },
  };
}

export type SessionRevocation = ReturnType<typeof createSessionRevocation>;
