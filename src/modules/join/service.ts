import { createHmac, randomInt } from 'node:crypto';
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Clock } from '../../platform/clock.js';
import type { Config } from '../../platform/config.js';
import { enforceUsername } from '../usernames/rules.js';
import { creationOptions, verifyCreation } from '../../platform/crypto/webauthn.js';
import type { NewCredential } from '../../platform/crypto/webauthn.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { AttemptLimiter } from '../../platform/limits/attempt-limiter.js';
import { uniqueViolation } from '../../platform/store/store.js';
import type { JoinAttemptRecord, Store } from '../../platform/store/store.js';
import { deviceLabel } from '../../platform/client-info.js';
import { insertPasskey } from '../methods/passkey-records.js';
import type { LocatedClient, SecurityLog } from '../security-log/service.js';
import type { AuthContext, IssuedTokens, SessionService } from '../sessions/service.js';
import type { JoinFactors } from './factors.js';

export const JOIN_CODE_TTL_MS = 120_000;
export const JOIN_ATTEMPT_TTL_MS = 10 * 60_000;
export const WRONG_CODES_BEFORE_VOID = 5;
const HOUR = 3600_000;

export type JoinStatus = 'awaiting_approval' | 'approved' | 'denied' | 'finished' | 'expired';

export interface AttemptView {
  attempt_id: string;
  status: JoinStatus;
  expires_at: string;
}

export interface PendingAttempt {
  attempt_id: string;
  /** code: redeemed a code from one of your devices; factor: started without one (approve it with its own factor only). */
  via: 'code' | 'factor';
  created_at: string;
  expires_at: string;
  ip: string;
  location: string | null;
  user_agent: string;
  device_label: string;
}

/** One answer for wrong, expired and used codes, and for codes of another username: no oracle. */
const codeInvalid = () => new AppError(422, 'join_code_invalid', 'Join code invalid', { detail: 'the code is wrong, expired or already used' });
const attemptNotFound = () => new AppError(404, 'join_attempt_not_found', 'Join attempt not found', { detail: 'no join attempt of yours has this id' });
const trustedOnly = () =>
  new AppError(403, 'ephemeral_session', 'Not allowed on an ephemeral session', { detail: 'only a trusted device can issue codes or decide join attempts' });

function statusOf(row: JoinAttemptRecord, now: number): JoinStatus {
  if ((row.status === 'awaiting_approval' || row.status === 'approved') && row.expires_at <= now) return 'expired';
  return row.status as JoinStatus;
}

/**
 * Cross-device join (spec: States and transitions, join attempt). A code alone never logs in:
 * redeeming it only creates an attempt that a trusted device, or a factor on the no-trusted-
 * device path, must approve (rule 1, 2).
 */
export function createJoinService(deps: {
  store: Store;
  clock: Clock;
  config: Config;
  codeKey: Buffer;
  limiter: AttemptLimiter;
  sessions: SessionService;
  securityLog: SecurityLog;
  factors: JoinFactors;
}) {
  const { store, clock, limiter, sessions, securityLog, factors } = deps;
  const rp = deps.config.webauthn;
  const limits = deps.config.join;

  const codeHash = (accountId: string, code: string) => createHmac('sha256', deps.codeKey).update(`${accountId}:${code}`).digest('base64url');
  const view = (row: JoinAttemptRecord): AttemptView => ({ attempt_id: row.id, status: statusOf(row, clock.now()), expires_at: new Date(row.expires_at).toISOString() });

  async function throttle(username: string, ip: string): Promise<void> {
    for (const [key, limit] of [[`join:user:${username}`, limits.perUsernamePerHour], [`join:client:${ip}`, limits.perClientPerHour]] as const) {
      const attempt = await limiter.hit(key, limit, HOUR);
      if (!attempt.allowed) {
        throw new AppError(429, 'too_many_attempts', 'Too many attempts', { detail: 'too many join attempts; wait before trying again', headers: { 'Retry-After': String(attempt.retryAfterSeconds) } });
      }
    }
  }

  /** Limits count per enforced username, so "ＡＤＡ" and "ada" share one budget. */
  function limitKey(username: string): string {
    const verdict = enforceUsername(username);
    return verdict.ok ? verdict.canonical : username.toLowerCase();
  }

  async function accountFor(username: string) {
    const verdict = enforceUsername(username);
    return verdict.ok ? store.accounts.findByCanonical(verdict.canonical) : undefined;
  }

  async function createAttempt(accountId: string, via: 'code' | 'factor', jkt: string, client: LocatedClient, tx = store as Pick<Store, 'join' | 'events'>): Promise<JoinAttemptRecord> {
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
    await tx.join.insertAttempt(row);
    await tx.events.append(accountId, 'join.requested', '/auth/join/pending', now);
    return row;
  }

  /** The attempt as its redeemer sees it: the proof's key must be the one that redeemed. */
  async function redeemersAttempt(id: string, jkt: string): Promise<JoinAttemptRecord> {
    const row = await store.join.findAttempt(id);
    if (!row) throw attemptNotFound();
    if (row.jkt !== jkt) throw new AppError(403, 'join_key_mismatch', 'Not the redeeming device', { detail: 'only the device that redeemed the code (same DPoP key) can use this attempt' });
    return row;
  }

  async function decide(auth: AuthContext, attemptId: string, to: 'approved' | 'denied'): Promise<AttemptView> {
    if (!auth.trusted) throw trustedOnly();
    const row = await store.join.findAttempt(attemptId);
    if (!row || row.account_id !== auth.account.id) throw attemptNotFound();
    // An attempt started without a code (factor path) is approved only by its factor: a device
    // approval would let anyone who knows a username flood the person with prompts.
    if (to === 'approved' && row.via !== 'code') {
      throw new AppError(409, 'invalid_transition', 'Invalid transition', { detail: 'this attempt was started without a code; only its own factor can approve it, you can deny it' });
    }
    const now = clock.now();
    const moved = await store.transaction(async (tx) => {
      if (!(await tx.join.transition(row.id, 'awaiting_approval', to, now, { decided_by: auth.sessionId }))) return false;
      await tx.events.append(auth.account.id, 'join.changed', '/auth/join/pending', now);
      return true;
    });
    if (!moved) throw notAwaiting(row);
    return view((await store.join.findAttempt(row.id))!);
  }

  function notAwaiting(row: JoinAttemptRecord): AppError {
    const status = statusOf(row, clock.now());
    if (status === 'expired') return new AppError(410, 'join_attempt_expired', 'Join attempt expired', { detail: 'the attempt expired; start again' });
    return new AppError(409, 'invalid_transition', 'Invalid transition', { detail: `the attempt is ${status}` });
  }

  return {
    async issue(auth: AuthContext): Promise<{ code: string; expires_at: string }> {
      if (!auth.trusted) throw trustedOnly();
      const now = clock.now();
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      await store.join.replaceCode({
        id: newId('join'),
        account_id: auth.account.id,
        session_id: auth.sessionId,
        code_hash: codeHash(auth.account.id, code),
        created_at: now,
        expires_at: now + JOIN_CODE_TTL_MS,
      });
      return { code, expires_at: new Date(now + JOIN_CODE_TTL_MS).toISOString() };
    },

    /** Never logs in: the new device only gets an attempt to wait on (spec rule 1). */
    async redeem(input: { username: string; code: string; jkt: string; client: LocatedClient }): Promise<AttemptView> {
      await throttle(limitKey(input.username), input.client.ip);
      const account = await accountFor(input.username);
      if (!account) throw codeInvalid();
      const now = clock.now();
      const row = await store.transaction(async (tx) => {
        if (!(await tx.join.consumeCode(account.id, codeHash(account.id, input.code), now))) return undefined;
        return createAttempt(account.id, 'code', input.jkt, input.client, tx);
      });
      if (!row) {
        await store.join.recordWrongCode(account.id, now, WRONG_CODES_BEFORE_VOID);
        throw codeInvalid();
      }
      return view(row);
    },

    /** The no-trusted-device path: an attempt approved by a factor instead of a device (rule 2). */
    async start(input: { username: string; jkt: string; client: LocatedClient }): Promise<AttemptView> {
      await throttle(limitKey(input.username), input.client.ip);
      const account = await accountFor(input.username);
      if (!account) throw new AppError(404, 'account_not_found', 'Account not found', { detail: 'no account has this username' });
      return view(await store.transaction((tx) => createAttempt(account.id, 'factor', input.jkt, input.client, tx)));
    },

    async status(attemptId: string, jkt: string): Promise<AttemptView> {
      return view(await redeemersAttempt(attemptId, jkt));
    },

    async pending(auth: AuthContext): Promise<PendingAttempt[]> {
      if (!auth.trusted) throw trustedOnly();
      const rows = await store.join.listAwaiting(auth.account.id, clock.now());
      return rows.map((row) => ({
        attempt_id: row.id,
        via: row.via as 'code' | 'factor',
        created_at: new Date(row.created_at).toISOString(),
        expires_at: new Date(row.expires_at).toISOString(),
        ip: row.ip,
        location: row.location,
        user_agent: row.user_agent,
        device_label: deviceLabel(row.user_agent),
      }));
    },

    approve: (auth: AuthContext, attemptId: string) => decide(auth, attemptId, 'approved'),
    deny: (auth: AuthContext, attemptId: string) => decide(auth, attemptId, 'denied'),

    async approveWithFactor(input: { attemptId: string; jkt: string; totpCode?: string; recoveryKey?: string }): Promise<AttemptView> {
      const row = await redeemersAttempt(input.attemptId, input.jkt);
      const attempt = await limiter.hit(`join-factor:${row.account_id}`, limits.factorPerAccountPerHour, HOUR);
      if (!attempt.allowed) {
        throw new AppError(429, 'too_many_attempts', 'Too many attempts', { detail: 'too many factor attempts; wait before trying again', headers: { 'Retry-After': String(attempt.retryAfterSeconds) } });
      }
      const now = clock.now();
      const outcome = await store.transaction(async (tx) => {
        if (statusOf(row, now) !== 'awaiting_approval') return 'state' as const;
        if (!(await factors.verify(tx, row.account_id, { totpCode: input.totpCode, recoveryKey: input.recoveryKey }))) return 'factor' as const;
        if (!(await tx.join.transition(row.id, 'awaiting_approval', 'approved', now, { decided_by: 'factor' }))) return 'state' as const;
        await tx.events.append(row.account_id, 'join.changed', '/auth/join/pending', now);
        return 'approved' as const;
      });
      if (outcome === 'state') throw notAwaiting((await store.join.findAttempt(row.id))!);
      if (outcome === 'factor') {
        throw new AppError(403, 'factor_invalid', 'Factor refused', { detail: 'the authenticator code or recovery key is not right (with an authenticator app, its code is required)' });
      }
      return view((await store.join.findAttempt(row.id))!);
    },

    async registerOptions(attemptId: string, jkt: string): Promise<{ options: PublicKeyCredentialCreationOptionsJSON }> {
      const row = await redeemersAttempt(attemptId, jkt);
      const status = statusOf(row, clock.now());
      if (status === 'expired') throw notAwaiting(row);
      if (status === 'denied') throw new AppError(403, 'join_denied', 'Join denied', { detail: 'the request was denied on a trusted device' });
      if (status !== 'approved') throw new AppError(403, 'JOIN_NOT_APPROVED', 'Join not approved', { detail: 'the attempt has not been approved on a trusted device' });
      const account = (await store.accounts.findById(row.account_id))!;
      const existing = await store.passkeys.listCredentialIds(account.id);
      const options = await creationOptions(
        rp,
        { handle: account.user_handle, name: account.username_canonical, displayName: account.username },
        existing.map((p) => ({ id: p.credential_id, transports: JSON.parse(p.transports) })),
      );
      await store.join.setChallenge(row.id, options.challenge);
      return { options };
    },

    /** approved → session issued (spec table rows 5 and 6). */
    async finish(input: { attemptId: string; jkt: string; persistDevice: boolean; credential?: RegistrationResponseJSON; client: LocatedClient }): Promise<IssuedTokens> {
      const row = await redeemersAttempt(input.attemptId, input.jkt);
      const now = clock.now();
      const status = statusOf(row, now);
      if (status === 'expired') throw new AppError(410, 'join_attempt_expired', 'Join attempt expired', { detail: 'the attempt expired; start again' });
      if (status === 'awaiting_approval') throw new AppError(403, 'JOIN_NOT_APPROVED', 'Join not approved', { detail: 'approve the request on a trusted device first' });
      if (status === 'denied') throw new AppError(403, 'join_denied', 'Join denied', { detail: 'the request was denied on a trusted device' });
      if (status === 'finished') throw new AppError(409, 'join_already_finished', 'Already finished', { detail: 'this attempt already issued a session' });

      let credential: NewCredential | undefined;
      if (input.persistDevice) {
        if (!input.credential) throw new AppError(400, 'credential_required', 'Credential required', { detail: 'persist_device true needs the WebAuthn create ceremony: POST /auth/join/register-options first' });
        if (!row.challenge) throw new AppError(400, 'ceremony_invalid', 'Ceremony invalid', { detail: 'ask POST /auth/join/register-options for a challenge first' });
        credential = await verifyCreation(rp, input.credential, row.challenge);
      }
      try {
        return await store.transaction(async (tx) => {
          // The transition is the single-use gate: of two finishes, one moves the attempt.
          if (!(await tx.join.transition(row.id, 'approved', 'finished', now, { challenge: null }))) {
            throw new AppError(409, 'join_already_finished', 'Already finished', { detail: 'this attempt already issued a session' });
          }
          if (credential) {
            await insertPasskey(tx, { accountId: row.account_id, credential, jkt: input.jkt, client: input.client, now });
            await tx.events.append(row.account_id, 'methods.changed', '/auth/methods', now);
            await securityLog.record(tx, row.account_id, 'passkey_added', input.client);
          }
          await tx.events.append(row.account_id, 'join.changed', '/auth/join/pending', now);
          await securityLog.record(tx, row.account_id, 'signed_in', input.client);
          // persist_device false: an ephemeral session and no credential (spec table row 5).
          return sessions.open(tx, { accountId: row.account_id, jkt: input.jkt, trusted: !!credential, client: input.client });
        });
      } catch (error) {
        if (uniqueViolation(error)) throw new AppError(409, 'credential_exists', 'Passkey already registered', { detail: 'this passkey is registered already' });
        throw error;
      }
    },
  };
}

export type JoinService = ReturnType<typeof createJoinService>;
