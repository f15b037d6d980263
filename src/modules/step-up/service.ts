import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { AuthContext } from '../../platform/caller.js';
import type { Begun, Ceremonies } from '../../platform/ceremonies.js';
import type { Clock } from '../../platform/clock.js';
import { verifyAssertion } from '../../platform/crypto/webauthn.js';
import type { RelyingParty } from '../../platform/crypto/webauthn.js';
import { refuse } from '../../platform/errors.js';
import { countingOutcomes } from '../../platform/metrics/metrics.js';
import type { Metrics } from '../../platform/metrics/metrics.js';
import type { PasskeyService } from '../methods/passkeys.js';

const required = (detail: string) => refuse('step_up_required', detail);
const ephemeral = () => refuse('ephemeral_session', 'sessions opened without keeping the device cannot step up');

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
 * this same session asked for, used once, within 5 minutes (PRODUCT §1).
 */
export function createStepUpService(deps: { clock: Clock; rp: RelyingParty; ceremonies: Ceremonies; passkeys: PasskeyService; metrics: Metrics }) {
  const { clock, rp, ceremonies, passkeys } = deps;

  /** The assertion a VID-Step-Up header carries: counted, unlike a request that carries none. */
  const checkAssertion = countingOutcomes((outcome) => deps.metrics.stepUp(outcome), async function checkAssertion(auth: AuthContext, header: string): Promise<void> {
    const assertion = parseHeader(header);
    const ceremony = await ceremonies.takeByChallenge(assertion.challenge, 'step_up', auth.sessionId);
    if (!ceremony) throw required('the step-up challenge is unknown, used, expired or from another session');
    const passkey = await passkeys.byCredentialId(assertion.id);
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
      throw refuse('step_up_required', { detail: 'the step-up assertion did not verify', cause: error });
    }
    await passkeys.recordAssertion(passkey.id, passkey.counter, { counter: verified.newCounter, backed_up: verified.backedUp ? 1 : 0, at: clock.now() });
  });

  return {
    async begin(auth: AuthContext): Promise<Begun<PublicKeyCredentialRequestOptionsJSON>> {
      if (!auth.trusted) throw ephemeral();
      return ceremonies.beginRequest('step_up', await passkeys.credentials(auth.account.id), { accountId: auth.account.id, sessionId: auth.sessionId });
    },

    /** Checks a VID-Step-Up header; the challenge is spent whatever the outcome. */
    async verify(auth: AuthContext, header: string | undefined): Promise<void> {
      // Told first: an ephemeral session could never satisfy a step-up request.
      if (!auth.trusted) throw ephemeral();
      if (!header) throw required('this operation needs a VID-Step-Up header: POST /auth/step-up/begin, then sign the challenge');
      await checkAssertion(auth, header);
    },
  };
}

export type StepUpService = ReturnType<typeof createStepUpService>;
