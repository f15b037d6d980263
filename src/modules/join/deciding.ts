import type { AuthContext } from '../../platform/caller.js';
import type { LocatedClient } from '../../platform/client-info.js';
import { deviceLabel } from '../../platform/client-info.js';
import { refuse } from '../../platform/errors.js';
import { placeOf } from '../../platform/geo/place.js';
import { addressBucket } from '../../platform/limits/address-bucket.js';
import { signal } from '../../platform/signals/signal.js';
import { page } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import { attemptNotFound, DAY, HOUR, trustedOnly } from './attempts.js';
import type { AttemptView, JoinAttempts, JoinDeps, PendingAttempt } from './attempts.js';
import { allows, statusOf, TRANSITIONS } from './states.js';

/** Deciding an attempt: a trusted device lists, approves or denies it, or the attempt's own factor approves it. */
export function createJoinDeciding(deps: Pick<JoinDeps, 'db' | 'clock' | 'limiter' | 'limits' | 'factors' | 'securityLog'>, attempts: JoinAttempts) {
  const { db, clock, limiter, limits, factors, securityLog } = deps;
  const direct = db.direct;
  const { view, redeemersAttempt, refusedNow, apply } = attempts;

  async function decide(auth: AuthContext, attemptId: string, action: 'approve' | 'deny'): Promise<AttemptView> {
    if (!auth.trusted) throw trustedOnly();
    const row = await direct.join.findAttempt(attemptId);
    if (!row || row.account_id !== auth.account.id) throw attemptNotFound();
    // An attempt started without a code (factor path) is approved only by its factor: a device
    // approval would let anyone who knows a username flood the person with prompts.
    if (!(TRANSITIONS[action].via as readonly string[]).includes(row.via)) {
      throw refuse('invalid_transition', 'this attempt was started without a code; only its own factor can approve it, you can deny it');
    }
    const now = clock.now();
    const refused = await db.transaction(async (_, tx) => {
      const refused = await apply(tx, row.id, action, now, { decided_by: auth.sessionId });
      if (!refused) await signal(tx, auth.account.id, 'join.changed');
      return refused;
    });
    if (refused) throw refused;
    return view((await db.current.join.findAttempt(row.id))!);
  }

  return {
    async pending(auth: AuthContext, cursor: string | undefined, limit: number): Promise<Page<PendingAttempt>> {
      if (!auth.trusted) throw trustedOnly();
      return page((after, size) => direct.join.listAwaiting(auth.account.id, clock.now(), after, size), cursor, limit, (row) => ({
        attempt_id: row.id,
        via: row.via as 'code' | 'factor',
        created_at: new Date(row.created_at).toISOString(),
        expires_at: new Date(row.expires_at).toISOString(),
        ip: row.ip,
        location: row.location,
        place: placeOf(row.location),
        user_agent: row.user_agent,
        device_label: deviceLabel(row.user_agent),
      }));
    },

    approve: (auth: AuthContext, attemptId: string) => decide(auth, attemptId, 'approve'),
    deny: (auth: AuthContext, attemptId: string) => decide(auth, attemptId, 'deny'),

    async approveWithFactor(input: { attemptId: string; jkt: string; totpCode?: string; recoveryKey?: string; client: LocatedClient }): Promise<AttemptView> {
      const row = await redeemersAttempt(input.attemptId, input.jkt);
      // Counted against this attempt and the client's address, never the account (decision 250):
      // a stranger's wrong factors on their own attempts never refuse the person's right one on
      // theirs. Each attempt takes a few tries; more need new attempts, which join/start counts
      // per address and per key. The attempt's window is a day, so an attempt (10 minutes) spans
      // at most two.
      const detail = 'too many factor attempts; wait before trying again';
      await limiter.enforce(`join-factor:client:${addressBucket(input.client.ip)}`, limits.factorPerClientPerHour, HOUR, detail);
      await limiter.enforce(`join-factor:attempt:${row.id}`, limits.factorPerAttempt, DAY, detail);
      const now = clock.now();
      // The refusals are returned, not thrown: the transaction commits what verifying the factor wrote.
      const refused = await db.transaction(async (_, tx) => {
        // Checked before the factor: a factor offered for an attempt that cannot be approved is not verified.
        if (!allows('approve_with_factor', statusOf(row, now))) return refusedNow(tx, row.id, 'approve_with_factor');
        if (!(await factors.verify(tx, row.account_id, { totpCode: input.totpCode, recoveryKey: input.recoveryKey }))) {
          // The person reads it in their recent activity, as a failed recovery.
          await securityLog.record(tx, row.account_id, 'join_factor_failed', input.client);
          return refuse('factor_invalid', 'the authenticator code or recovery key is not right (with an authenticator app, its code is required)');
        }
        const refused = await apply(tx, row.id, 'approve_with_factor', now, { decided_by: 'factor' });
        if (!refused) await signal(tx, row.account_id, 'join.changed');
        return refused;
      });
      if (refused) throw refused;
      return view((await db.current.join.findAttempt(row.id))!);
    },
  };
}
