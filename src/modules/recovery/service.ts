import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { AuthContext } from '../../platform/caller.js';
import type { Begun, Ceremonies } from '../../platform/ceremonies.js';
import type { LocatedClient } from '../../platform/client-info.js';
import type { Clock } from '../../platform/clock.js';
import type { Config } from '../../platform/config.js';
import { generateRecoveryKey, normalizeRecoveryKey, recoveryKeyVerifier, verifiersMatch } from '../../platform/crypto/recovery-key.js';
import type { SecretBox } from '../../platform/crypto/secret-box.js';
import { verifyCreation } from '../../platform/crypto/webauthn.js';
import type { RelyingParty } from '../../platform/crypto/webauthn.js';
import { refuse } from '../../platform/errors.js';
import { addressBucket } from '../../platform/limits/address-bucket.js';
import type { AttemptLimiter } from '../../platform/limits/attempt-limiter.js';
import { countingOutcomes } from '../../platform/metrics/metrics.js';
import type { Metrics } from '../../platform/metrics/metrics.js';
import { signal } from '../../platform/signals/signal.js';
import type { accountQueries } from '../../platform/store/accounts.js';
import { uniqueViolation } from '../../platform/store/store.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import type { PasskeyService } from '../methods/passkeys.js';
import type { TotpService } from '../methods/totp.js';
import type { SecurityLog } from '../security-log/service.js';
import type { IssuedTokens, SessionService } from '../sessions/service.js';
import type { UsernameService } from '../usernames/service.js';
import type { recoveryKeyQueries } from './queries.js';

/** What recovery keys are sealed with (associated data); the rotation re-seals them under it. */
export const RECOVERY_SEAL_PURPOSE = 'recovery-key';
const PURPOSE = RECOVERY_SEAL_PURPOSE;
const HOUR = 3600_000;
// Compared against when the username is unknown, so both paths cost the same.
const DECOY_VERIFIER = recoveryKeyVerifier('0'.repeat(32));
// Looked up in place of an unknown account or an invalid name: ids and names no row can have
// (account ids are acc_…; a canonical username has no spaces).
const NO_ACCOUNT_ID = 'acc-none';
const NO_USERNAME = ' ';

export interface RecoveryKeyState {
  created_at: string;
  downloaded_at: string | null;
  schema_version: 1;
}

const iso = (t: number) => new Date(t).toISOString();
const notFound = () => refuse('recovery_key_not_found', 'this account has no recovery key');

/**
 * One answer for every failure (wrong key, wrong or missing code, unknown name): the response
 * never says which part was wrong (spec: Authentication 6, 7).
 */
const refused = () =>
  refuse('recovery_refused', 'the username, recovery key or authenticator code is not right; an account with an authenticator app needs its code too');

/** The recovery key (generated once at sign-up) and recovery on a new device without a passkey. */
export function createRecoveryService(deps: {
  db: RepositoryOf<{ keys: typeof recoveryKeyQueries; accounts: typeof accountQueries }>;
  clock: Clock;
  rp: RelyingParty;
  limits: Config['recovery'];
  box: SecretBox;
  limiter: AttemptLimiter;
  ceremonies: Ceremonies;
  usernames: UsernameService;
  passkeys: PasskeyService;
  totp: TotpService;
  sessions: SessionService;
  securityLog: SecurityLog;
  metrics: Metrics;
}) {
  const { db, clock, box, limiter, totp, sessions, securityLog, passkeys, limits } = deps;

  return {
    /** Called inside the sign-up transaction: every account has its key from the first moment. */
    async createKey(tx: Tx, accountId: string): Promise<void> {
      const key = generateRecoveryKey();
      const canonical = normalizeRecoveryKey(key) as string;
      await db.in(tx).keys.insert({ account_id: accountId, key_sealed: box.seal(key, PURPOSE), verifier: recoveryKeyVerifier(canonical), created_at: clock.now(), downloaded_at: null });
    },

    /** Whether `typed` is the account's recovery key (the no-trusted-device join path). */
    async matches(tx: Tx, accountId: string, typed: string | undefined): Promise<boolean> {
      const stored = await db.in(tx).keys.find(accountId);
      const canonical = typed === undefined ? undefined : normalizeRecoveryKey(typed);
      return !!stored && !!canonical && verifiersMatch(recoveryKeyVerifier(canonical), stored.verifier);
    },

    /**
     * The key, for a download. It is the same key every time: made once at sign-up (spec:
     * "generated once"), so a new download replaces nothing and an old copy keeps working.
     */
    async download(auth: AuthContext, client: LocatedClient): Promise<{ key: string; filename: string }> {
      const row = await db.direct.keys.find(auth.account.id);
      if (!row) throw notFound();
      await db.transaction(async (q, tx) => {
        await q.keys.markDownloaded(auth.account.id, clock.now());
        await securityLog.record(tx, auth.account.id, 'recovery_key_downloaded', client);
        await signal(tx, auth.account.id, 'recovery_key.changed');
      });
      return { key: box.open(row.key_sealed, PURPOSE), filename: `vid-recovery-key-${auth.account.username_canonical}.txt` };
    },

    /** When the key was made and last downloaded: what the Security page shows without a step-up. */
    async state(auth: AuthContext): Promise<RecoveryKeyState> {
      const row = await db.direct.keys.find(auth.account.id);
      if (!row) throw notFound();
      return { created_at: iso(row.created_at), downloaded_at: row.downloaded_at === null ? null : iso(row.downloaded_at), schema_version: 1 };
    },

    async begin(input: { username: string; recoveryKey: string; totpCode?: string; client: LocatedClient }): Promise<Begun<PublicKeyCredentialCreationOptionsJSON>> {
      const canonical = deps.usernames.canonicalOf(input.username);
      // An unknown name does the work of a known one with a wrong key (decision 009): the same
      // two reads, the same hashing, one transaction with the same read and one write. Else the
      // time of the refusal would say whether the name has an account.
      const account = await db.direct.accounts.findByCanonical(canonical ?? NO_USERNAME);
      const subject = account?.id ?? NO_ACCOUNT_ID;
      const stored = await db.direct.keys.find(subject);
      const typed = normalizeRecoveryKey(input.recoveryKey);
      const keyMatches = verifiersMatch(typed ? recoveryKeyVerifier(typed) : DECOY_VERIFIER, stored?.verifier ?? DECOY_VERIFIER) && !!typed && !!stored;

      // One count per attempt, never against the username (decision 250): a wrong key counts
      // against the client's address, which is all a stranger can spend; the right key counts
      // against the account, which only its holder can spend (the authenticator-code guesses
      // of someone who has the key). So no stranger's failures ever refuse the right key.
      const detail = 'too many recovery attempts; wait before trying again';
      if (keyMatches && account) await limiter.enforce(`recovery:holder:${account.id}`, limits.keyHolderPerHour, HOUR, detail);
      else await limiter.enforce(`recovery:client:${addressBucket(input.client.ip)}`, limits.perClientPerHour, HOUR, detail);

      const outcome = await db.transaction(async (_, tx) => {
        // Rule 7: with an active authenticator, the key alone is not enough.
        const needsCode = await totp.hasActive(tx, subject);
        const codeOk = !needsCode || (input.totpCode !== undefined && keyMatches && (await totp.verifyAny(tx, subject, input.totpCode)));
        if (!account) {
          // In place of the security-log row, in this transaction: a challenge nobody is given
          // (recovery/finish takes only challenges that name an account).
          await deps.ceremonies.keepDecoy(tx, 'recovery');
          return false;
        }
        const ok = keyMatches && codeOk;
        await securityLog.record(tx, account.id, ok ? 'recovery_succeeded' : 'recovery_failed', input.client);
        return ok;
      });
      if (!outcome || !account) throw refused();

      return deps.ceremonies.beginCreation(
        'recovery',
        { handle: account.user_handle, name: account.username_canonical, displayName: account.username },
        await passkeys.credentials(account.id),
        { accountId: account.id },
      );
    },

    /** Registers the new device's passkey and opens a trusted session bound to its DPoP key. */
    finish: countingOutcomes((outcome) => deps.metrics.login('recovery', outcome), async function finish(input: { ceremonyId: string; credential: RegistrationResponseJSON; jkt: string; client: LocatedClient }): Promise<IssuedTokens> {
      const ceremony = await deps.ceremonies.take(input.ceremonyId, 'recovery', { needsAccount: true });
      const accountId = ceremony.account_id!;
      const credential = await verifyCreation(deps.rp, input.credential, ceremony.challenge);
      try {
        return await db.transaction(async (_, tx) => {
          const now = clock.now();
          const passkeyId = await passkeys.add(tx, { accountId, credential, jkt: input.jkt, client: input.client, now });
          const tokens = await sessions.open(tx, { accountId, jkt: input.jkt, trusted: true, client: input.client, passkeyId });
          // The account's other devices learn of the recovery at once.
          await signal(tx, accountId, 'methods.changed');
          await signal(tx, accountId, 'account.changed');
          await securityLog.record(tx, accountId, 'passkey_added', input.client);
          return tokens;
        });
      } catch (error) {
        if (uniqueViolation(error)) throw passkeys.alreadyRegistered();
        throw error;
      }
    }),
  };
}

export type RecoveryService = ReturnType<typeof createRecoveryService>;
