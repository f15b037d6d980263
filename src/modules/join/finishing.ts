import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { LocatedClient } from '../../platform/client-info.js';
import { verifyCreation } from '../../platform/crypto/webauthn.js';
import type { NewCredential } from '../../platform/crypto/webauthn.js';
import { refuse } from '../../platform/errors.js';
import { countingOutcomes } from '../../platform/metrics/metrics.js';
import { signal } from '../../platform/signals/signal.js';
import { uniqueViolation } from '../../platform/store/store.js';
import type { IssuedTokens } from '../sessions/service.js';
import { refusal } from './attempts.js';
import type { JoinAttempts, JoinDeps } from './attempts.js';
import { allows, statusOf } from './states.js';

/** The approved device's way in: the WebAuthn creation options, then a session (and a passkey when it stays). */
export function createJoinFinishing(deps: Pick<JoinDeps, 'db' | 'clock' | 'rp' | 'ceremonies' | 'passkeys' | 'sessions' | 'securityLog' | 'metrics'>, attempts: JoinAttempts) {
  const { db, clock, rp, passkeys, sessions, securityLog } = deps;
  const direct = db.direct;
  const { redeemersAttempt, apply } = attempts;

  return {
    async registerOptions(attemptId: string, jkt: string): Promise<{ options: PublicKeyCredentialCreationOptionsJSON; schema_version: 1 }> {
      const row = await redeemersAttempt(attemptId, jkt);
      // The options are for finishing: they need the state finish leaves.
      const status = statusOf(row, clock.now());
      if (!allows('finish', status)) throw refusal('register_options', status);
      const account = (await direct.accounts.findById(row.account_id))!;
      // The challenge is kept on the attempt, which only its redeemer can finish.
      const options = await deps.ceremonies.creationOptions(
        { handle: account.user_handle, name: account.username_canonical, displayName: account.username },
        await passkeys.credentials(account.id),
      );
      await direct.join.setChallenge(row.id, options.challenge);
      return { options, schema_version: 1 };
    },

    /** approved → session issued (spec table rows 5 and 6). */
    finish: countingOutcomes((outcome) => deps.metrics.login('join', outcome), async function finish(input: { attemptId: string; jkt: string; persistDevice: boolean; credential?: RegistrationResponseJSON; client: LocatedClient }): Promise<IssuedTokens> {
      const row = await redeemersAttempt(input.attemptId, input.jkt);
      const now = clock.now();
      const status = statusOf(row, now);
      if (!allows('finish', status)) throw refusal('finish', status);

      let credential: NewCredential | undefined;
      if (input.persistDevice) {
        if (!input.credential) throw refuse('credential_required', 'persist_device true needs the WebAuthn create ceremony: POST /auth/join/register-options first');
        if (!row.challenge) throw refuse('ceremony_invalid', 'ask POST /auth/join/register-options for a challenge first');
        credential = await verifyCreation(rp, input.credential, row.challenge);
      }
      try {
        return await db.transaction(async (_, tx) => {
          // The transition is the single-use gate: of two finishes, one moves the attempt.
          const refused = await apply(tx, row.id, 'finish', now, { challenge: null });
          if (refused) throw refused;
          let passkeyId: string | undefined;
          if (credential) {
            passkeyId = await passkeys.add(tx, { accountId: row.account_id, credential, jkt: input.jkt, client: input.client, now });
            await signal(tx, row.account_id, 'methods.changed');
            await securityLog.record(tx, row.account_id, 'passkey_added', input.client);
          }
          await signal(tx, row.account_id, 'join.changed');
          await securityLog.record(tx, row.account_id, 'signed_in', input.client);
          // persist_device false: an ephemeral session and no credential (spec table row 5).
          return sessions.open(tx, { accountId: row.account_id, jkt: input.jkt, trusted: !!credential, client: input.client, passkeyId });
        });
      } catch (error) {
        if (uniqueViolation(error)) throw passkeys.alreadyRegistered();
        throw error;
      }
    }),
  };
}
