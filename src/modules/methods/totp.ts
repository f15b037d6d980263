import type { Clock } from '../../platform/clock.js';
import type { Config } from '../../platform/config.js';
import type { SecretBox } from '../../platform/crypto/secret-box.js';
import { generateTotpSecret, matchingStep, totpUri } from '../../platform/crypto/totp.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { AttemptLimiter } from '../../platform/limits/attempt-limiter.js';
import type { Store, StoreQueries, TotpRecord } from '../../platform/store/store.js';
import type { LocatedClient, SecurityLog } from '../security-log/service.js';
import type { AuthContext } from '../sessions/service.js';

export interface TotpView {
  id: string;
  name: string;
  active: boolean;
  created_at: string;
  confirmed_at: string | null;
  last_used_at: string | null;
  schema_version: 1;
}

export interface TotpEnrollment extends TotpView {
  secret: string;
  otpauth_uri: string;
}

const PURPOSE = 'totp-secret';
// Codes tried per account: 10 in 15 minutes, then wait (STANDARDS: throttle failures). A person
// confirms an app once, so counting the right code too costs nobody anything.
const FAILURES_PER_WINDOW = 10;
const FAILURE_WINDOW_MS = 15 * 60_000;

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
const view = (row: TotpRecord): TotpView => ({
  id: row.id,
  name: row.name,
  active: row.active === 1,
  created_at: new Date(row.created_at).toISOString(),
  confirmed_at: iso(row.confirmed_at),
  last_used_at: iso(row.last_used_at),
  schema_version: 1,
});
const notFound = () => new AppError(404, 'totp_not_found', 'Authenticator not found', { detail: 'no authenticator of yours has this id' });

/** TOTP authenticators (RFC 6238): several per account, any active one's code passes. */
export function createTotpService(deps: { store: Store; clock: Clock; config: Config; box: SecretBox; limiter: AttemptLimiter; securityLog: SecurityLog }) {
  const { store, clock, box, limiter, securityLog } = deps;
  const issuer = deps.config.webauthn.rpName;

  async function throttle(accountId: string): Promise<void> {
    const attempt = await limiter.hit(`totp:${accountId}`, FAILURES_PER_WINDOW, FAILURE_WINDOW_MS);
    if (!attempt.allowed) {
      throw new AppError(429, 'too_many_attempts', 'Too many attempts', { detail: 'too many wrong codes; wait and try again', headers: { 'Retry-After': String(attempt.retryAfterSeconds) } });
    }
  }

  /** Accepts the code if it is valid now for this authenticator and its step was not used before. */
  async function accept(tx: StoreQueries, row: TotpRecord, code: string, activate: boolean): Promise<boolean> {
    const now = clock.now();
    const step = matchingStep(box.open(row.secret_sealed, PURPOSE), code, now);
    return step !== undefined && (await tx.totp.acceptStep(row.id, step, now, activate));
  }

  return {
    async enroll(auth: AuthContext, name: string, client: LocatedClient): Promise<TotpEnrollment> {
      const secret = generateTotpSecret();
      const now = clock.now();
      const row: TotpRecord = {
        id: newId('totp'),
        account_id: auth.account.id,
        name,
        secret_sealed: box.seal(secret, PURPOSE),
        active: 0,
        last_step: null,
        version: 1,
        created_at: now,
        confirmed_at: null,
        last_used_at: null,
      };
      await store.transaction(async (tx) => {
        await tx.totp.insert(row);
        await tx.events.append(auth.account.id, 'methods.changed', '/auth/totp', now);
        await securityLog.record(tx, auth.account.id, 'totp_added', client);
      });
      return { ...view(row), secret, otpauth_uri: totpUri(secret, issuer, auth.account.username) };
    },

    /** A first valid code activates a pending authenticator. */
    async confirm(auth: AuthContext, id: string, code: string, client: LocatedClient): Promise<TotpView> {
      const row = await store.totp.find(auth.account.id, id);
      if (!row) throw notFound();
      if (row.active === 1) throw new AppError(409, 'totp_already_active', 'Already active', { detail: 'this authenticator is active already' });
      await throttle(auth.account.id);
      return store.transaction(async (tx) => {
        if (!(await accept(tx, row, code, true))) throw new AppError(422, 'totp_code_invalid', 'Invalid code', { detail: 'the code is wrong, expired or already used' });
        await tx.events.append(auth.account.id, 'methods.changed', '/auth/totp', clock.now());
        await securityLog.record(tx, auth.account.id, 'totp_confirmed', client);
        return view((await tx.totp.find(auth.account.id, id))!);
      });
    },

    async list(auth: AuthContext): Promise<TotpView[]> {
      return (await store.totp.list(auth.account.id)).map(view);
    },

    async remove(auth: AuthContext, id: string, client: LocatedClient): Promise<void> {
      await store.transaction(async (tx) => {
        if (!(await tx.totp.remove(auth.account.id, id))) throw notFound();
        await tx.events.append(auth.account.id, 'methods.changed', '/auth/totp', clock.now());
        await securityLog.record(tx, auth.account.id, 'totp_removed', client);
      });
    },

    hasActive: (accountId: string) => store.totp.countActive(accountId).then((n) => n > 0),

    /** Any active authenticator's code passes, once per time step (recovery, join). */
    async verifyAny(tx: StoreQueries, accountId: string, code: string): Promise<boolean> {
      for (const row of await tx.totp.listActive(accountId)) {
        if (await accept(tx, row, code, false)) return true;
      }
      return false;
    },
  };
}

export type TotpService = ReturnType<typeof createTotpService>;
