import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { Clock } from '../../platform/clock.js';
import type { Config } from '../../platform/config.js';
import { CEREMONY_TIMEOUT_MS, requestOptions, verifyAssertion } from '../../platform/crypto/webauthn.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { Store } from '../../platform/store/store.js';
import type { AuthContext } from '../sessions/service.js';

/** Step-up assertions are good for 5 minutes (PRODUCT §1). */
export const STEP_UP_TTL_MS = CEREMONY_TIMEOUT_MS;

const required = (detail: string) => new AppError(403, 'step_up_required', 'Step-up required', { detail });

function parseHeader(header: string): AuthenticationResponseJSON & { challenge: string } {
  try {
    const assertion = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
    const clientData = JSON.parse(Buffer.from(String(assertion?.response?.clientDataJSON), 'base64url').toString('utf8'));
    if (typeof assertion.id !== 'string' || typeof clientData.challenge !== 'string') throw new Error('incomplete');
    return { ...assertion, challenge: clientData.challenge };
  } catch {
    throw required('VID-Step-Up must be the base64url of a JSON WebAuthn assertion');
  }
}

/**
 * Step-up (spec: Authentication 2): a fresh user-verified assertion, answering a challenge that
 * this same session asked for, used once, within 5 minutes.
 */
export function createStepUpService(deps: { store: Store; clock: Clock; config: Config }) {
  const { store, clock } = deps;
  const rp = deps.config.webauthn;
  return {
    async begin(auth: AuthContext): Promise<{ ceremony_id: string; options: PublicKeyCredentialRequestOptionsJSON }> {
      if (!auth.trusted) {
        throw new AppError(403, 'ephemeral_session', 'Not allowed on an ephemeral session', { detail: 'sessions opened without keeping the device cannot step up' });
      }
      const passkeys = await store.passkeys.listCredentialIds(auth.account.id);
      const options = await requestOptions(rp, passkeys.map((p) => ({ id: p.credential_id, transports: JSON.parse(p.transports) })));
      const id = newId('cer');
      await store.ceremonies.insert({
        id,
        kind: 'step_up',
        challenge: options.challenge,
        username: null,
        user_handle: null,
        account_id: auth.account.id,
        session_id: auth.sessionId,
        expires_at: clock.now() + STEP_UP_TTL_MS,
      });
      return { ceremony_id: id, options };
    },

    /** Checks a VID-Step-Up header; the challenge is spent whatever the outcome. */
    async verify(auth: AuthContext, header: string | undefined): Promise<void> {
      // Told first: an ephemeral session could never satisfy a step-up request.
      if (!auth.trusted) {
        throw new AppError(403, 'ephemeral_session', 'Not allowed on an ephemeral session', { detail: 'sessions opened without keeping the device cannot step up' });
      }
      if (!header) throw required('this operation needs a VID-Step-Up header: POST /auth/step-up/begin, then sign the challenge');
      const assertion = parseHeader(header);
      const ceremony = await store.ceremonies.consumeByChallenge(assertion.challenge, 'step_up', auth.sessionId);
      if (!ceremony || ceremony.expires_at <= clock.now()) throw required('the step-up challenge is unknown, used, expired or from another session');
      const passkey = await store.passkeys.findByCredentialId(assertion.id);
      if (!passkey || passkey.account_id !== auth.account.id) throw required('the assertion is not from a passkey of this account');
      let verified;
      try {
        verified = await verifyAssertion(rp, assertion, ceremony.challenge, {
          credentialId: passkey.credential_id,
          publicKey: passkey.public_key,
          counter: passkey.counter,
          backupEligible: passkey.backup_eligible === 1,
        });
      } catch (error) {
        throw new AppError(403, 'step_up_required', 'Step-up required', { detail: 'the step-up assertion did not verify', cause: error });
      }
      await store.passkeys.recordAssertion(passkey.id, passkey.counter, { counter: verified.newCounter, backed_up: verified.backedUp ? 1 : 0, at: clock.now() });
    },
  };
}

export type StepUpService = ReturnType<typeof createStepUpService>;
