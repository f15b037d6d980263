import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Clock } from '../../platform/clock.js';
import type { Config } from '../../platform/config.js';
import { randomBase64url } from '../../platform/crypto/tokens.js';
import { CEREMONY_TIMEOUT_MS, creationOptions, requestOptions, verifyAssertion, verifyCreation } from '../../platform/crypto/webauthn.js';
import type { RelyingParty } from '../../platform/crypto/webauthn.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { uniqueViolation } from '../../platform/store/store.js';
import type { CeremonyRecord, Store, StoreQueries } from '../../platform/store/store.js';
import type { MeView } from '../me/view.js';
import { meView } from '../me/view.js';
import type { ClientInfo } from '../../platform/client-info.js';
import { insertPasskey } from '../methods/passkey-records.js';
import type { SecurityLog } from '../security-log/service.js';
import type { IssuedTokens, SessionService } from '../sessions/service.js';
import type { UsernameService } from '../usernames/service.js';

export interface Registration {
  account: MeView;
  passkey_id: string;
  tokens: IssuedTokens;
}

const ceremonyGone = () =>
  new AppError(400, 'ceremony_invalid', 'Ceremony invalid', { detail: 'the ceremony is unknown, used or expired; begin again' });

/** Sign-up and sign-in with a discoverable passkey (spec: Authentication 3 and 4). */
export function createPasskeyAuthService(deps: {
  store: Store;
  clock: Clock;
  config: Config;
  sessions: SessionService;
  usernames: UsernameService;
  securityLog: SecurityLog;
  /** Makes the account's recovery key inside the sign-up transaction. */
  createRecoveryKey: (tx: StoreQueries, accountId: string) => Promise<void>;
}) {
  const { store, clock, config, sessions, usernames, securityLog } = deps;
  const rp: RelyingParty = config.webauthn;

  /** Consumed whatever the verification's outcome: a challenge answers once (WebAuthn L3 §13.4.3). */
  async function takeCeremony(id: string, kind: string): Promise<CeremonyRecord> {
    const ceremony = await store.ceremonies.consume(id, kind);
    if (!ceremony || ceremony.expires_at <= clock.now()) throw ceremonyGone();
    return ceremony;
  }

  return {
    async registerBegin(username: string): Promise<{ ceremony_id: string; options: PublicKeyCredentialCreationOptionsJSON }> {
      const accepted = await usernames.requireAvailable(username);
      // WebAuthn L3 §5.4.3: user.id is random, never personal data.
      const userHandle = randomBase64url(32);
      const options = await creationOptions(rp, { handle: userHandle, name: accepted.canonical, displayName: username }, []);
      const ceremonyId = newId('cer');
      await store.ceremonies.insert({
        id: ceremonyId,
        kind: 'register',
        challenge: options.challenge,
        username,
        user_handle: userHandle,
        account_id: null,
        session_id: null,
        expires_at: clock.now() + CEREMONY_TIMEOUT_MS,
      });
      return { ceremony_id: ceremonyId, options };
    },

    async registerFinish(input: {
      ceremonyId: string;
      username: string;
      credential: RegistrationResponseJSON;
      jkt: string;
      client: ClientInfo;
    }): Promise<Registration> {
      const ceremony = await takeCeremony(input.ceremonyId, 'register');
      if (ceremony.username !== input.username) {
        throw new AppError(400, 'ceremony_mismatch', 'Ceremony mismatch', { detail: 'the username differs from the one the ceremony began with' });
      }
      const accepted = await usernames.requireAvailable(input.username);
      const credential = await verifyCreation(rp, input.credential, ceremony.challenge);
      const client = await securityLog.locate(input.client);
      const now = clock.now();
      const account = {
        id: newId('acc'),
        username: accepted.username,
        username_canonical: accepted.canonical,
        username_skeleton: accepted.skeleton,
        user_handle: ceremony.user_handle as string,
        display_name: null,
        locale: null,
        default_country: null,
        region: config.region,
        version: 1,
        created_at: now,
      };
      try {
        // One transaction: the account, its first passkey and its first session exist together or not at all.
        return await store.transaction(async (tx) => {
          await tx.accounts.insert(account);
          const passkeyId = await insertPasskey(tx, { accountId: account.id, credential, jkt: input.jkt, client: input.client, now });
          await deps.createRecoveryKey(tx, account.id);
          const tokens = await sessions.open(tx, { accountId: account.id, jkt: input.jkt, trusted: true, client: input.client });
          await securityLog.record(tx, account.id, 'account_created', client);
          return { account: meView(account), passkey_id: passkeyId, tokens };
        });
      } catch (error) {
        const violation = uniqueViolation(error);
        if (!violation) throw error;
        // Two sign-ups raced for one name (or two confusable names): the database let exactly one in.
        if (violation.constraint.includes('credential_id')) {
          throw new AppError(409, 'credential_exists', 'Passkey already registered', { detail: 'this passkey is registered already' });
        }
        // Which index SQLite names when both fail is arbitrary: ask the rows that won.
        const clash = await store.accounts.findClash(accepted.canonical, accepted.skeleton);
        throw usernames.refusalFor(clash ?? violation.constraint);
      }
    },

    async loginBegin(): Promise<{ ceremony_id: string; options: PublicKeyCredentialRequestOptionsJSON }> {
      // Discoverable login: an empty allowCredentials lets the authenticator offer its passkeys.
      const options = await requestOptions(rp, []);
      const ceremonyId = newId('cer');
      await store.ceremonies.insert({
        id: ceremonyId,
        kind: 'login',
        challenge: options.challenge,
        username: null,
        user_handle: null,
        account_id: null,
        session_id: null,
        expires_at: clock.now() + CEREMONY_TIMEOUT_MS,
      });
      return { ceremony_id: ceremonyId, options };
    },

    async loginFinish(input: { ceremonyId: string; credential: AuthenticationResponseJSON; jkt: string; client: ClientInfo }): Promise<IssuedTokens> {
      const ceremony = await takeCeremony(input.ceremonyId, 'login');
      const refused = () => new AppError(401, 'passkey_not_recognized', 'Passkey not recognized', { detail: 'this passkey does not belong to any account' });
      const passkey = await store.passkeys.findByCredentialId(input.credential.id);
      if (!passkey) throw refused();
      const account = await store.accounts.findById(passkey.account_id);
      // WebAuthn L3 §7.2 step 6: the userHandle must name the account that owns the credential.
      if (!account || input.credential.response.userHandle !== account.user_handle) throw refused();
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
        if (error instanceof AppError && error.code === 'passkey_counter_regressed') await store.passkeys.flag(passkey.id, clock.now());
        throw error;
      }
      const client = await securityLog.locate(input.client);
      return store.transaction(async (tx) => {
        const recorded = await tx.passkeys.recordUse(passkey.id, passkey.counter, {
          counter: verified.newCounter,
          backed_up: verified.backedUp ? 1 : 0,
          at: clock.now(),
          dpop_jkt: input.jkt,
        });
        if (!recorded) throw new AppError(409, 'passkey_in_use', 'Concurrent sign-in', { detail: 'another sign-in with this passkey happened at the same time; try again' });
        await securityLog.record(tx, account.id, 'signed_in', client);
        return sessions.open(tx, { accountId: account.id, jkt: input.jkt, trusted: true, client: input.client });
      });
    },
  };
}

export type PasskeyAuthService = ReturnType<typeof createPasskeyAuthService>;
