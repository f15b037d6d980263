import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Clock } from '../../platform/clock.js';
import type { Config } from '../../platform/config.js';
import { generateRecoveryKey, normalizeRecoveryKey, recoveryKeyVerifier, verifiersMatch } from '../../platform/crypto/recovery-key.js';
import type { SecretBox } from '../../platform/crypto/secret-box.js';
import { enforceUsername } from '../usernames/rules.js';
import { CEREMONY_TIMEOUT_MS, creationOptions, verifyCreation } from '../../platform/crypto/webauthn.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { AttemptLimiter } from '../../platform/limits/attempt-limiter.js';
import { uniqueViolation } from '../../platform/store/store.js';
import type { Store, StoreQueries } from '../../platform/store/store.js';
import { insertPasskey } from '../methods/passkey-records.js';
import type { LocatedClient, SecurityLog } from '../security-log/service.js';
import type { AuthContext, IssuedTokens, SessionService } from '../sessions/service.js';
import type { TotpService } from '../methods/totp.js';

const PURPOSE = 'recovery-key';
const HOUR = 3600_000;
// Compared against when the username is unknown, so both paths cost the same.
const DECOY_VERIFIER = recoveryKeyVerifier('0'.repeat(32));

/**
 * One answer for every failure (wrong key, wrong or missing code, unknown name): the response
 * never says which part was wrong (spec: Authentication 6, 7).
 */
const refused = () =>
  new AppError(403, 'recovery_refused', 'Recovery refused', {
    detail: 'the username, recovery key or authenticator code is not right; an account with an authenticator app needs its code too',
  });

/** The recovery key (generated once at sign-up) and recovery on a new device without a passkey. */
export function createRecoveryService(deps: {
  store: Store;
  clock: Clock;
  config: Config;
  box: SecretBox;
  limiter: AttemptLimiter;
  totp: TotpService;
  sessions: SessionService;
  securityLog: SecurityLog;
}) {
  const { store, clock, box, limiter, totp, sessions, securityLog, config } = deps;
  const rp = config.webauthn;

  async function throttle(key: string, limit: number): Promise<void> {
    const attempt = await limiter.hit(key, limit, HOUR);
    if (!attempt.allowed) {
      throw new AppError(429, 'too_many_attempts', 'Too many attempts', {
        detail: 'too many recovery attempts; wait before trying again',
        headers: { 'Retry-After': String(attempt.retryAfterSeconds) },
      });
    }
  }

  return {
    /** Called inside the sign-up transaction: every account has its key from the first moment. */
    async createKey(tx: StoreQueries, accountId: string): Promise<void> {
      const key = generateRecoveryKey();
      const canonical = normalizeRecoveryKey(key) as string;
      await tx.recoveryKeys.insert({ account_id: accountId, key_sealed: box.seal(key, PURPOSE), verifier: recoveryKeyVerifier(canonical), created_at: clock.now() });
    },

    async download(auth: AuthContext, client: LocatedClient): Promise<{ key: string; filename: string }> {
      const row = await store.recoveryKeys.find(auth.account.id);
      if (!row) throw new AppError(404, 'recovery_key_not_found', 'No recovery key', { detail: 'this account has no recovery key' });
      await store.transaction((tx) => securityLog.record(tx, auth.account.id, 'recovery_key_downloaded', client));
      return { key: box.open(row.key_sealed, PURPOSE), filename: `vid-recovery-key-${auth.account.username_canonical}.txt` };
    },

    async begin(input: { username: string; recoveryKey: string; totpCode?: string; client: LocatedClient }): Promise<{ ceremony_id: string; options: PublicKeyCredentialCreationOptionsJSON }> {
      const verdict = enforceUsername(input.username);
      const canonical = verdict.ok ? verdict.canonical : input.username.toLowerCase();
      await throttle(`recovery:client:${input.client.ip}`, config.recovery.perClientPerHour);
      await throttle(`recovery:user:${canonical}`, config.recovery.perUsernamePerHour);

      const account = verdict.ok ? await store.accounts.findByCanonical(canonical) : undefined;
      const stored = account ? await store.recoveryKeys.find(account.id) : undefined;
      const typed = normalizeRecoveryKey(input.recoveryKey);
      const keyMatches = verifiersMatch(typed ? recoveryKeyVerifier(typed) : DECOY_VERIFIER, stored?.verifier ?? DECOY_VERIFIER) && !!typed && !!stored;
      if (!account) throw refused();

      const outcome = await store.transaction(async (tx) => {
        // Rule 7: with an active authenticator, the key alone is not enough.
        const needsCode = (await tx.totp.countActive(account.id)) > 0;
        const codeOk = !needsCode || (input.totpCode !== undefined && keyMatches && (await totp.verifyAny(tx, account.id, input.totpCode)));
        const ok = keyMatches && codeOk;
        await securityLog.record(tx, account.id, ok ? 'recovery_succeeded' : 'recovery_failed', input.client);
        return ok;
      });
      if (!outcome) throw refused();

      const passkeys = await store.passkeys.listCredentialIds(account.id);
      const options = await creationOptions(
        rp,
        { handle: account.user_handle, name: account.username_canonical, displayName: account.username },
        passkeys.map((p) => ({ id: p.credential_id, transports: JSON.parse(p.transports) })),
      );
      const id = newId('cer');
      await store.ceremonies.insert({
        id,
        kind: 'recovery',
        challenge: options.challenge,
        username: null,
        user_handle: account.user_handle,
        account_id: account.id,
        session_id: null,
        expires_at: clock.now() + CEREMONY_TIMEOUT_MS,
      });
      return { ceremony_id: id, options };
    },

    /** Registers the new device's passkey and opens a trusted session bound to its DPoP key. */
    async finish(input: { ceremonyId: string; credential: RegistrationResponseJSON; jkt: string; client: LocatedClient }): Promise<IssuedTokens> {
      const ceremony = await store.ceremonies.consume(input.ceremonyId, 'recovery');
      if (!ceremony || ceremony.expires_at <= clock.now() || !ceremony.account_id) {
        throw new AppError(400, 'ceremony_invalid', 'Ceremony invalid', { detail: 'the ceremony is unknown, used or expired; begin again' });
      }
      const accountId = ceremony.account_id;
      const credential = await verifyCreation(rp, input.credential, ceremony.challenge);
      try {
        return await store.transaction(async (tx) => {
          const now = clock.now();
          await insertPasskey(tx, { accountId, credential, jkt: input.jkt, client: input.client, now });
          const tokens = await sessions.open(tx, { accountId, jkt: input.jkt, trusted: true, client: input.client });
          // The account's other devices learn of the recovery at once.
          await tx.events.append(accountId, 'methods.changed', '/auth/methods', now);
          await tx.events.append(accountId, 'account.changed', '/me', now);
          await securityLog.record(tx, accountId, 'passkey_added', input.client);
          return tokens;
        });
      } catch (error) {
        if (uniqueViolation(error)) throw new AppError(409, 'credential_exists', 'Passkey already registered', { detail: 'this passkey is registered already' });
        throw error;
      }
    },
  };
}

export type RecoveryService = ReturnType<typeof createRecoveryService>;
