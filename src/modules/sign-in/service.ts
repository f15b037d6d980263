import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Begun, Ceremonies } from '../../platform/ceremonies.js';
import type { LocatedClient } from '../../platform/client-info.js';
import type { Clock } from '../../platform/clock.js';
import { randomBase64url } from '../../platform/crypto/tokens.js';
import { verifyAssertion, verifyCreation } from '../../platform/crypto/webauthn.js';
import type { RelyingParty } from '../../platform/crypto/webauthn.js';
import { AppError, refuse } from '../../platform/errors.js';
import { newAccount } from '../../platform/store/accounts.js';
import { newId } from '../../platform/ids.js';
import { countingOutcomes } from '../../platform/metrics/metrics.js';
import type { Metrics } from '../../platform/metrics/metrics.js';
import type { accountQueries } from '../../platform/store/accounts.js';
import { uniqueViolation } from '../../platform/store/store.js';
import type { RepositoryOf } from '../../platform/store/store.js';
import type { MeService, MeView } from '../me/service.js';
import type { PasskeyService } from '../methods/passkeys.js';
import type { RecoveryService } from '../recovery/service.js';
import type { SecurityLog } from '../security-log/service.js';
import type { IssuedTokens, SessionService } from '../sessions/service.js';
import type { UsernameService } from '../usernames/service.js';

export interface Registration {
  account: MeView;
  passkey_id: string;
  tokens: IssuedTokens;
  schema_version: 1;
}

/** Sign-up and sign-in with a discoverable passkey (spec: Authentication 3 and 4). */
export function createSignInService(deps: {
  db: RepositoryOf<{ accounts: typeof accountQueries }>;
  clock: Clock;
  rp: RelyingParty;
  /** Stored with new accounts (REGION). */
  region: string;
  ceremonies: Ceremonies;
  usernames: UsernameService;
  passkeys: PasskeyService;
  recovery: RecoveryService;
  sessions: SessionService;
  securityLog: SecurityLog;
  me: MeService;
  metrics: Metrics;
}) {
  const { db, clock, rp, ceremonies, sessions, usernames, passkeys, securityLog, metrics } = deps;

  return {
    async registerBegin(username: string): Promise<Begun<PublicKeyCredentialCreationOptionsJSON>> {
      const accepted = await usernames.requireAvailable(username);
      // WebAuthn L3 §5.4.3: user.id is random, never personal data.
      // The passkey shows the name as the account does: its canonical form (docs/decisions/007).
      return ceremonies.beginCreation('register', { handle: randomBase64url(32), name: accepted.canonical, displayName: accepted.canonical }, [], { username });
    },

    registerFinish: countingOutcomes((outcome) => metrics.signUp(outcome), async function registerFinish(input: { ceremonyId: string; username: string; credential: RegistrationResponseJSON; jkt: string; client: LocatedClient }): Promise<Registration> {
      const ceremony = await ceremonies.take(input.ceremonyId, 'register');
      if (ceremony.username !== input.username) throw refuse('ceremony_mismatch', 'the username differs from the one the ceremony began with');
      const accepted = await usernames.requireAvailable(input.username);
      const credential = await verifyCreation(rp, input.credential, ceremony.challenge);
      const now = clock.now();
      const account = newAccount({
        id: newId('acc'),
        // Shown in its canonical form, never as typed (docs/decisions/007).
        username: accepted.canonical,
        username_canonical: accepted.canonical,
        username_skeleton: accepted.skeleton,
        username_skeleton_upper: accepted.skeletonUpper,
        user_handle: ceremony.user_handle as string,
        region: deps.region,
        version: 1,
        created_at: now,
      });
      try {
        // One transaction: the account, its first passkey and its first session exist together or not at all.
        return await db.transaction(async (q, tx) => {
          await q.accounts.insert(account);
          const passkeyId = await passkeys.add(tx, { accountId: account.id, credential, jkt: input.jkt, client: input.client, now });
          await deps.recovery.createKey(tx, account.id);
          const tokens = await sessions.open(tx, { accountId: account.id, jkt: input.jkt, trusted: true, client: input.client, passkeyId });
          await securityLog.record(tx, account.id, 'account_created', input.client);
          return { account: deps.me.view(account), passkey_id: passkeyId, tokens, schema_version: 1 };
        });
      } catch (error) {
        const violation = uniqueViolation(error);
        if (!violation) throw error;
        // Two sign-ups raced for one name, or for two names alike in a stored key (lower-case or
        // capitals): its unique index let exactly one in. Names alike only in the typed key
        // ("billyqz" and "biIIyqz") are not held by any index and can both get in (decision 007, Limits).
        if (violation.constraint.includes('credential_id')) throw passkeys.alreadyRegistered();
        // Which index SQLite names when both fail is arbitrary: ask the rows that won.
        throw await usernames.raceRefusal(accepted, violation.constraint);
      }
    }),

    async loginBegin(): Promise<Begun<PublicKeyCredentialRequestOptionsJSON>> {
      // Discoverable login: an empty allowCredentials lets the authenticator offer its passkeys.
      return ceremonies.beginRequest('login', [], {});
    },

    loginFinish: countingOutcomes((outcome) => metrics.login('passkey', outcome), async function loginFinish(input: { ceremonyId: string; credential: AuthenticationResponseJSON; jkt: string; client: LocatedClient }): Promise<IssuedTokens> {
      // The ceremony taken out (whatever follows) and the passkey with its owner's handle, in one go.
      const { ceremony, passkey } = await passkeys.takeForSignIn(input.ceremonyId, 'login', input.credential.id);
      const refused = () => refuse('passkey_not_recognized', 'this passkey does not belong to any account');
      // WebAuthn L3 §7.2 step 6: the userHandle must name the account that owns the credential.
      if (!passkey || input.credential.response.userHandle !== passkey.owner_user_handle) throw refused();
      const account = { id: passkey.account_id };
      let verified;
      try {
        verified = await verifyAssertion(rp, input.credential, ceremony.challenge, {
          credentialId: passkey.credential_id,
          publicKey: passkey.public_key,
          counter: passkey.counter,
          backupEligible: passkey.backup_eligible === 1,
        });
      } catch (error) {
        // A counter that went backwards suggests a cloned authenticator: refuse and flag, do not lock.
        if (error instanceof AppError && error.code === 'passkey_counter_regressed') await passkeys.flag(passkey.id, clock.now());
        throw error;
      }
      return db.transaction(async (_, tx) => {
        const recorded = await passkeys.recordSignIn(tx, passkey.id, passkey.counter, {
          counter: verified.newCounter,
          backed_up: verified.backedUp ? 1 : 0,
          at: clock.now(),
          dpop_jkt: input.jkt,
        });
        if (!recorded) throw refuse('passkey_in_use', 'another sign-in with this passkey happened at the same time; try again');
        await securityLog.record(tx, account.id, 'signed_in', input.client);
        return sessions.open(tx, { accountId: account.id, jkt: input.jkt, trusted: true, client: input.client, passkeyId: passkey.id });
      });
    }),
  };
}

export type SignInService = ReturnType<typeof createSignInService>;
