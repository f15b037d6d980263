import type { LocatedClient } from '../../platform/client-info.js';
import type { Ceremonies } from '../../platform/ceremonies.js';
import type { Clock } from '../../platform/clock.js';
import type { Config } from '../../platform/config.js';
import type { RelyingParty } from '../../platform/crypto/webauthn.js';
import { refuse } from '../../platform/errors.js';
import type { AppError } from '../../platform/errors.js';
import type { Place } from '../../platform/geo/place.js';
import { newId } from '../../platform/ids.js';
import type { AttemptLimiter } from '../../platform/limits/attempt-limiter.js';
import type { Metrics } from '../../platform/metrics/metrics.js';
import { signal } from '../../platform/signals/signal.js';
import type { accountQueries } from '../../platform/store/accounts.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import type { PasskeyService } from '../methods/passkeys.js';
import type { SecurityLog } from '../security-log/service.js';
import type { SessionService } from '../sessions/service.js';
import type { UsernameService } from '../usernames/service.js';
import type { JoinFactors } from './factors.js';
import type { JoinAttemptRecord, joinQueries } from './queries.js';
import { statusOf, TRANSITIONS } from './states.js';
import type { JoinAction, JoinStatus } from './states.js';

export const JOIN_CODE_TTL_MS = 120_000;
export const JOIN_ATTEMPT_TTL_MS = 10 * 60_000;
export const WRONG_CODES_BEFORE_VOID = 5;
export const HOUR = 3600_000;
export const DAY = 24 * HOUR;

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

/** What the join service is built from (module.ts passes it whole; each part takes what it uses). */
export interface JoinDeps {
  db: RepositoryOf<{ join: typeof joinQueries; accounts: typeof accountQueries }>;
  clock: Clock;
  rp: RelyingParty;
  ceremonies: Ceremonies;
  limits: Config['join'];
  /** Keys the code hashes under each key of the ring, the current one first (decision 110), derived from SECRET_KEY. */
  codeKeys: readonly Buffer[];
  limiter: AttemptLimiter;
  usernames: UsernameService;
  passkeys: PasskeyService;
  sessions: SessionService;
  securityLog: SecurityLog;
  factors: JoinFactors;
  metrics: Metrics;
}

/** One answer for wrong, expired and used codes, and for codes of another username: no oracle. */
export const codeInvalid = () => refuse('join_code_invalid', 'the code is wrong, expired or already used');
export const attemptNotFound = () => refuse('join_attempt_not_found', 'no join attempt of yours has this id');
export const trustedOnly = () => refuse('ephemeral_session', 'only a trusted device can issue codes or decide join attempts');
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
export function refusal(action: JoinAction | 'register_options', status: JoinStatus): AppError {
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

/** What the parts of the join service share: reading, creating and moving attempts along the state table. */
export function createJoinAttempts(deps: Pick<JoinDeps, 'db' | 'clock' | 'limiter' | 'limits' | 'usernames'>) {
  const { db, clock, limiter, limits } = deps;
  const direct = db.direct;

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

  return { view, throttle, accountFor, createAttempt, redeemersAttempt, refusedNow, apply };
}

export type JoinAttempts = ReturnType<typeof createJoinAttempts>;
