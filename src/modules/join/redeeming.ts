import type { LocatedClient } from '../../platform/client-info.js';
import { refuse } from '../../platform/errors.js';
import { signal } from '../../platform/signals/signal.js';
import { codeInvalid, WRONG_CODES_BEFORE_VOID } from './attempts.js';
import type { AttemptView, JoinAttempts, JoinDeps } from './attempts.js';
import { codeHashes } from './codes.js';

/** The new device's side before a decision: redeeming a code, starting without one, waiting on the attempt. */
export function createJoinRedeeming(deps: Pick<JoinDeps, 'db' | 'clock' | 'codeKeys'>, attempts: JoinAttempts) {
  const { db, clock } = deps;
  const { view, throttle, accountFor, createAttempt, redeemersAttempt } = attempts;

  return {
    /** Never logs in: the new device only gets an attempt to wait on (spec rule 1). */
    async redeem(input: { username: string; code: string; jkt: string; client: LocatedClient }): Promise<AttemptView> {
      await throttle(input.client.ip, input.jkt);
      const account = await accountFor(input.username);
      if (!account) throw codeInvalid();
      const now = clock.now();
      const row = await db.transaction(async (q, tx) => {
        if (!(await q.join.consumeCode(account.id, codeHashes(deps.codeKeys, account.id, input.code), now))) return undefined;
        // The device showing the code learns it was used (GET /auth/join/code says so), and can take it off the screen.
        await signal(tx, account.id, 'join.code.changed');
        return createAttempt(tx, account.id, 'code', input.jkt, input.client);
      });
      if (!row) {
        // The account's trusted devices learn when wrong guesses kill their code (GET /auth/join/code).
        await db.transaction(async (q, tx) => {
          if (await q.join.recordWrongCode(account.id, now, WRONG_CODES_BEFORE_VOID)) await signal(tx, account.id, 'join.code.changed');
        });
        throw codeInvalid();
      }
      return view(row);
    },

    /** The no-trusted-device path: an attempt approved by a factor instead of a device (rule 2). */
    async start(input: { username: string; jkt: string; client: LocatedClient }): Promise<AttemptView> {
      await throttle(input.client.ip, input.jkt);
      const account = await accountFor(input.username);
      if (!account) throw refuse('account_not_found', 'no account has this username');
      return view(await db.transaction((_, tx) => createAttempt(tx, account.id, 'factor', input.jkt, input.client)));
    },

    async status(attemptId: string, jkt: string): Promise<AttemptView> {
      return view(await redeemersAttempt(attemptId, jkt));
    },
  };
}
