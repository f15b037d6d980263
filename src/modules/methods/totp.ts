import type { AuthContext } from '../../platform/caller.js';
import type { LocatedClient } from '../../platform/client-info.js';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto/secret-box.js';
import { generateTotpSecret, matchingStep, totpUri } from '../../platform/crypto/totp.js';
import { refuse } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { AttemptLimiter } from '../../platform/limits/attempt-limiter.js';
import { signal } from '../../platform/signals/signal.js';
import { keysetPages, page } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import type { SecurityLog } from '../security-log/service.js';
import type { TotpRecord, totpQueries } from './queries.js';

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

/** What TOTP secrets are sealed with (associated data); the rotation re-seals them under it. */
export const TOTP_SEAL_PURPOSE = 'totp-secret';
const PURPOSE = TOTP_SEAL_PURPOSE;
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
const notFound = () => refuse('totp_not_found', 'no authenticator of yours has this id');

/** TOTP authenticators (RFC 6238): several per account, any active one's code passes. */
export function createTotpService(deps: {
  db: RepositoryOf<{ totp: typeof totpQueries }>;
  clock: Clock;
  /** The issuer authenticator apps show (RP_NAME). */
  issuer: string;
  box: SecretBox;
  limiter: AttemptLimiter;
  securityLog: SecurityLog;
}) {
  const { db, clock, box, limiter, securityLog, issuer } = deps;

  /** Accepts the code if it is valid now for this authenticator and its step was not used before. */
  async function accept(tx: Tx, row: TotpRecord, code: string, activate: boolean): Promise<boolean> {
    const now = clock.now();
    const step = matchingStep(box.open(row.secret_sealed, PURPOSE), code, now);
    return step !== undefined && (await db.in(tx).totp.acceptStep(row.id, step, now, activate));
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
      await db.transaction(async (q, tx) => {
        await q.totp.insert(row);
        await signal(tx, auth.account.id, 'methods.changed');
        await securityLog.record(tx, auth.account.id, 'totp_added', client);
      });
      return { ...view(row), secret, otpauth_uri: totpUri(secret, issuer, auth.account.username) };
    },

    /** A first valid code activates a pending authenticator. */
    async confirm(auth: AuthContext, id: string, code: string, client: LocatedClient): Promise<TotpView> {
      const row = await db.direct.totp.find(auth.account.id, id);
      if (!row) throw notFound();
      if (row.active === 1) throw refuse('totp_already_active', 'this authenticator is active already');
      await limiter.enforce(`totp:${auth.account.id}`, FAILURES_PER_WINDOW, FAILURE_WINDOW_MS, 'too many wrong codes; wait and try again');
      return db.transaction(async (q, tx) => {
        if (!(await accept(tx, row, code, true))) throw refuse('totp_code_invalid', 'the code is wrong, expired or already used');
        await signal(tx, auth.account.id, 'methods.changed');
        await securityLog.record(tx, auth.account.id, 'totp_confirmed', client);
        return view((await q.totp.find(auth.account.id, id))!);
      });
    },

    async list(auth: AuthContext, cursor: string | undefined, limit: number): Promise<Page<TotpView>> {
      return page((after, size) => db.direct.totp.page(auth.account.id, after, size), cursor, limit, view);
    },

    /** Names and dates only: the secrets stay sealed on the server (the account export). */
    async *exportPages(accountId: string): AsyncIterable<TotpView[]> {
      for await (const rows of keysetPages((after, limit) => db.direct.totp.page(accountId, after, limit), (row) => row)) yield rows.map(view);
    },
    /** The purge (PRODUCT §8). */
    async erase(tx: Tx, accountId: string): Promise<void> {
      await db.in(tx).totp.removeAll(accountId);
    },

    async remove(auth: AuthContext, id: string, client: LocatedClient): Promise<void> {
      await db.transaction(async (q, tx) => {
        if (!(await q.totp.remove(auth.account.id, id))) throw notFound();
        await signal(tx, auth.account.id, 'methods.changed');
        await securityLog.record(tx, auth.account.id, 'totp_removed', client);
      });
    },

    /** Whether the account has an active authenticator (rule 7: then a code is required). */
    hasActive: async (tx: Tx, accountId: string) => (await db.in(tx).totp.countActive(accountId)) > 0,

    /** Any active authenticator's code passes, once per time step (recovery, join). */
    async verifyAny(tx: Tx, accountId: string, code: string): Promise<boolean> {
      for (const row of await db.in(tx).totp.listActive(accountId)) {
        if (await accept(tx, row, code, false)) return true;
      }
      return false;
    },
  };
}

export type TotpService = ReturnType<typeof createTotpService>;
