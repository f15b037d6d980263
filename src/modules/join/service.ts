import { createHmac, randomInt } from 'node:crypto';
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { AuthContext } from '../../platform/caller.js';
import type { Ceremonies } from '../../platform/ceremonies.js';
import { deviceLabel } from '../../platform/client-info.js';
import type { LocatedClient } from '../../platform/client-info.js';
import type { Clock } from '../../platform/clock.js';
import type { Config } from '../../platform/config.js';
import { placeOf } from '../../platform/geo/place.js';
import type { Place } from '../../platform/geo/place.js';
import { verifyCreation } from '../../platform/crypto/webauthn.js';
import type { NewCredential, RelyingParty } from '../../platform/crypto/webauthn.js';
import { refuse } from '../../platform/errors.js';
import type { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { addressBucket } from '../../platform/limits/address-bucket.js';
import type { AttemptLimiter } from '../../platform/limits/attempt-limiter.js';
import { countingOutcomes } from '../../platform/metrics/metrics.js';
import type { Metrics } from '../../platform/metrics/metrics.js';
import { signal } from '../../platform/signals/signal.js';
import type { accountQueries } from '../../platform/store/accounts.js';
import { page } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import { uniqueViolation } from '../../platform/store/store.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import type { PasskeyService } from '../methods/passkeys.js';
import type { SecurityLog } from '../security-log/service.js';
import type { IssuedTokens, SessionService } from '../sessions/service.js';
import type { UsernameService } from '../usernames/service.js';
import type { JoinFactors } from './factors.js';
import type { JoinAttemptRecord, JoinCodeRecord, joinQueries } from './queries.js';
import { allows, statusOf, TRANSITIONS } from './states.js';
import type { JoinAction, JoinStatus } from './states.js';

export type { JoinStatus } from './states.js';

export const JOIN_CODE_TTL_MS = 120_000;
export const JOIN_ATTEMPT_TTL_MS = 10 * 60_000;
export const WRONG_CODES_BEFORE_VOID = 5;
const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** The code a trusted session issued last, as that session sees it (never the digits: only their hash is kept). */
export interface CodeState {
  /** voided: five wrong guesses were made against it; issue a new one. */
  status: 'active' | 'used' | 'expired' | 'voided';
  wrong_guesses: number;
  expires_at: string;
  schema_version: 1;
}

export interface AttemptView {
  attempt_id: string;
  status: JoinStatus;
  expires_at: string;
  schema_version: 1;
}

export interface PendingAttempt {
  attempt_id: string;
  /** code: redeemed a code from one of your devices; factor: started without one (approve it with its own factor only). */
  via: 'code' | 'factor';
  created_at: string;
  expires_at: string;
  ip: string;
  location: string | null;
  place: Place | null;
  user_agent: string;
  device_label: string;
}

/** One answer for wrong, expired and used codes, and for codes of another username: no oracle. */
const codeInvalid = () => refuse('join_code_invalid', 'the code is wrong, expired or already used');
const attemptNotFound = () => refuse('join_attempt_not_found', 'no join attempt of yours has this id');
const trustedOnly = () => refuse('ephemeral_session', 'only a trusted device can issue codes or decide join attempts');
const expired = () => refuse('join_attempt_expired', 'the attempt expired; start again');
const denied = () => refuse('join_denied', 'the request was denied on a trusted device');
const alreadyFinished = () => refuse('join_already_finished', 'this attempt already issued a session');

/**
 * Why an action is refused from a state the table (states.ts) does not let it leave. Every action:
 * 410 once expired. Deciding (approve, deny, a factor's approval): 409 invalid_transition. Finish:
 * the spec's 403 JOIN_NOT_APPROVED while awaiting approval, 403 join_denied, 409
 * join_already_finished. Creation options are asked for on the way to finish and need its
 * from-state; they answer like it, but JOIN_NOT_APPROVED for a finished attempt too.
 */
function refusal(action: JoinAction | 'register_options', status: JoinStatus): AppError {
  if (status === 'expired') return expired();
  switch (action) {
    case 'finish':
      if (status === 'awaiting_approval') return refuse('JOIN_NOT_APPROVED', 'approve the request on a trusted device first');
      return status === 'denied' ? denied() : alreadyFinished();
    case 'register_options':
      return status === 'denied' ? denied() : refuse('JOIN_NOT_APPROVED', 'the attempt has not been approved on a trusted device');
    default:
      return refuse('invalid_transition', `the attempt is ${status}`);
  }
}

/**
 * Cross-device join (spec: States and transitions, join attempt). A code alone never logs in:
 * redeeming it only creates an attempt that a trusted device, or a factor on the no-trusted-
 * device path, must approve (rule 1, 2).
 */
export function createJoinService(deps: {
  db: RepositoryOf<{ join: typeof joinQueries; accounts: typeof accountQueries }>;
  clock: Clock;
  rp: RelyingParty;
  ceremonies: Ceremonies;
  limits: Config['join'];
  /** Keys the code hashes (HMAC), derived from SECRET_KEY. */
  /** Keys the code hashes under each key of the ring, the current one first (decision 110). */
  codeKeys: readonly Buffer[];
  limiter: AttemptLimiter;
  usernames: UsernameService;
  passkeys: PasskeyService;
  sessions: SessionService;
  securityLog: SecurityLog;
  factors: JoinFactors;
  metrics: Metrics;
}) {
  const { db, clock, limiter, sessions, securityLog, factors, passkeys, rp, limits } = deps;
  const direct = db.direct;

  const hashUnder = (key: Buffer, accountId: string, code: string) => createHmac('sha256', key).update(`${accountId}:${code}`).digest('base64url');
  const codeHash = (accountId: string, code: string) => hashUnder(deps.codeKeys[0]!, accountId, code);
  // Codes live 2 minutes and are never re-hashed: one issued under the previous key still redeems.
  const codeHashes = (accountId: string, code: string) => deps.codeKeys.map((key) => hashUnder(key, accountId, code));
  const view = (row: JoinAttemptRecord): AttemptView => ({ attempt_id: row.id, status: statusOf(row, clock.now()), expires_at: new Date(row.expires_at).toISOString(), schema_version: 1 });

  /**
   * Redeems and starts count against the client that makes them, per address and per DPoP key,
   * before any work (decision 030). Never against the username: a stranger's guesses would
   * then lock the person out of their own fresh code. Wrong guesses also count against the
   * codes themselves (recordWrongCode), which bounds guessing however many clients guess.
   */
  async function throttle(ip: string, jkt: string): Promise<void> {
    const detail = 'too many join attempts; wait before trying again';
    await limiter.enforce(`join:client:${ip}`, limits.perClientPerHour, HOUR, detail);
    await limiter.enforce(`join:key:${jkt}`, limits.perKeyPerHour, HOUR, detail);
  }

  function codeStateOf(row: JoinCodeRecord, now: number): CodeState['status'] {
    if (row.used_at !== null) return 'used';
    if (row.voided_at !== null) return 'voided';
    return row.expires_at <= now ? 'expired' : 'active';
  }

  async function accountFor(username: string) {
    const canonical = deps.usernames.canonicalOf(username);
    return canonical ? direct.accounts.findByCanonical(canonical) : undefined;
  }

  async function createAttempt(tx: Tx, accountId: string, via: 'code' | 'factor', jkt: string, client: LocatedClient): Promise<JoinAttemptRecord> {
    const now = clock.now();
    const row: JoinAttemptRecord = {
      id: newId('join'),
      account_id: accountId,
      via,
      jkt,
      status: 'awaiting_approval',
      challenge: null,
      ip: client.ip,
      location: client.location,
      user_agent: client.userAgent,
      created_at: now,
      expires_at: now + JOIN_ATTEMPT_TTL_MS,
      decided_at: null,
      decided_by: null,
      finished_at: null,
    };
    await db.in(tx).join.insertAttempt(row);
    await signal(tx, accountId, 'join.requested');
    return row;
  }

  /** The attempt as its redeemer sees it: the proof's key must be the one that redeemed. */
  async function redeemersAttempt(id: string, jkt: string): Promise<JoinAttemptRecord> {
    const row = await direct.join.findAttempt(id);
    if (!row) throw attemptNotFound();
    if (row.jkt !== jkt) throw refuse('join_key_mismatch', 'only the device that redeemed the code (same DPoP key) can use this attempt');
    return row;
  }

  /** The refusal of `action` from the state the attempt is in now (404 if it is gone). */
  async function refusedNow(tx: Tx, id: string, action: JoinAction): Promise<AppError> {
    const current = await db.in(tx).join.findAttempt(id);
    return current ? refusal(action, statusOf(current, clock.now())) : attemptNotFound();
  }

  /**
   * Applies one row of the state table (states.ts): one conditional update moves the attempt from
   * one of the row's from-states, unexpired, to its to-state and stamps the row's time, so of two
   * racing transitions exactly one wins. Otherwise the refusal from the state the attempt is in by
   * then, returned rather than thrown: the factor path commits the factor's use either way.
   */
  async function apply(tx: Tx, id: string, action: JoinAction, now: number, changes: { decided_by?: string; challenge?: null } = {}): Promise<AppError | undefined> {
    const rule = TRANSITIONS[action];
    const stamp = rule.stamps === 'decided_at' ? { decided_at: now } : { finished_at: now };
    if (await db.in(tx).join.transition(id, rule.from, { status: rule.to, ...stamp, ...changes }, now)) return undefined;
    return refusedNow(tx, id, action);
  }

  async function decide(auth: AuthContext, attemptId: string, action: 'approve' | 'deny'): Promise<AttemptView> {
    if (!auth.trusted) throw trustedOnly();
    const row = await direct.join.findAttempt(attemptId);
    if (!row || row.account_id !== auth.account.id) throw attemptNotFound();
    // An attempt started without a code (factor path) is approved only by its factor: a device
    // approval would let anyone who knows a username flood the person with prompts.
    if (!(TRANSITIONS[action].via as readonly string[]).includes(row.via)) {
      throw refuse('invalid_transition', 'this attempt was started without a code; only its own factor can approve it, you can deny it');
    }
    const now = clock.now();
    const refused = await db.transaction(async (_, tx) => {
      const refused = await apply(tx, row.id, action, now, { decided_by: auth.sessionId });
      if (!refused) await signal(tx, auth.account.id, 'join.changed');
      return refused;
    });
    if (refused) throw refused;
    return view((await db.current.join.findAttempt(row.id))!);
  }

  return {
    async issue(auth: AuthContext): Promise<{ code: string; expires_at: string; schema_version: 1 }> {
      if (!auth.trusted) throw trustedOnly();
      const now = clock.now();
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      await direct.join.replaceCode({
        id: newId('join'),
        account_id: auth.account.id,
        session_id: auth.sessionId,
        code_hash: codeHash(auth.account.id, code),
        created_at: now,
        expires_at: now + JOIN_CODE_TTL_MS,
      });
      return { code, expires_at: new Date(now + JOIN_CODE_TTL_MS).toISOString(), schema_version: 1 };
    },

    /** Never logs in: the new device only gets an attempt to wait on (spec rule 1). */
    async redeem(input: { username: string; code: string; jkt: string; client: LocatedClient }): Promise<AttemptView> {
      await throttle(input.client.ip, input.jkt);
      const account = await accountFor(input.username);
      if (!account) throw codeInvalid();
      const now = clock.now();
      const row = await db.transaction(async (q, tx) => {
        if (!(await q.join.consumeCode(account.id, codeHashes(account.id, input.code), now))) return undefined;
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

    async pending(auth: AuthContext, cursor: string | undefined, limit: number): Promise<Page<PendingAttempt>> {
      if (!auth.trusted) throw trustedOnly();
      return page((after, size) => direct.join.listAwaiting(auth.account.id, clock.now(), after, size), cursor, limit, (row) => ({
        attempt_id: row.id,
        via: row.via as 'code' | 'factor',
        created_at: new Date(row.created_at).toISOString(),
        expires_at: new Date(row.expires_at).toISOString(),
        ip: row.ip,
        location: row.location,
        place: placeOf(row.location),
        user_agent: row.user_agent,
        device_label: deviceLabel(row.user_agent),
      }));
    },

    /** What became of the code this session issued last: still active, used, expired, or voided by wrong guesses. */
    async codeState(auth: AuthContext): Promise<CodeState> {
      if (!auth.trusted) throw trustedOnly();
      const row = await direct.join.latestCodeOf(auth.sessionId);
      if (!row) throw refuse('join_code_not_found', 'this session has not issued a code; POST /auth/join/issue makes one');
      return { status: codeStateOf(row, clock.now()), wrong_guesses: Number(row.failures), expires_at: new Date(row.expires_at).toISOString(), schema_version: 1 };
    },

    approve: (auth: AuthContext, attemptId: string) => decide(auth, attemptId, 'approve'),
    deny: (auth: AuthContext, attemptId: string) => decide(auth, attemptId, 'deny'),

    async approveWithFactor(input: { attemptId: string; jkt: string; totpCode?: string; recoveryKey?: string; client: LocatedClient }): Promise<AttemptView> {
      const row = await redeemersAttempt(input.attemptId, input.jkt);
      // Counted against this attempt and the client's address, never the account (decision 250):
      // a stranger's wrong factors on their own attempts never refuse the person's right one on
      // theirs. Each attempt takes a few tries; more need new attempts, which join/start counts
      // per address and per key. The attempt's window is a day, so an attempt (10 minutes) spans
      // at most two.
      const detail = 'too many factor attempts; wait before trying again';
      await limiter.enforce(`join-factor:client:${addressBucket(input.client.ip)}`, limits.factorPerClientPerHour, HOUR, detail);
      await limiter.enforce(`join-factor:attempt:${row.id}`, limits.factorPerAttempt, DAY, detail);
      const now = clock.now();
      // The refusals are returned, not thrown: the transaction commits what verifying the factor wrote.
      const refused = await db.transaction(async (_, tx) => {
        // Checked before the factor: a factor offered for an attempt that cannot be approved is not verified.
        if (!allows('approve_with_factor', statusOf(row, now))) return refusedNow(tx, row.id, 'approve_with_factor');
        if (!(await factors.verify(tx, row.account_id, { totpCode: input.totpCode, recoveryKey: input.recoveryKey }))) {
          // The person reads it in their recent activity, as a failed recovery.
          await securityLog.record(tx, row.account_id, 'join_factor_failed', input.client);
          return refuse('factor_invalid', 'the authenticator code or recovery key is not right (with an authenticator app, its code is required)');
        }
        const refused = await apply(tx, row.id, 'approve_with_factor', now, { decided_by: 'factor' });
        if (!refused) await signal(tx, row.account_id, 'join.changed');
        return refused;
      });
      if (refused) throw refused;
      return view((await db.current.join.findAttempt(row.id))!);
    },

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

export type JoinService = ReturnType<typeof createJoinService>;
