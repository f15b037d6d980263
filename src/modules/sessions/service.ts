import type { AuthContext } from '../../platform/caller.js';
import { deviceLabel } from '../../platform/client-info.js';
import type { LocatedClient } from '../../platform/client-info.js';
import type { Clock } from '../../platform/clock.js';
import type { Config } from '../../platform/config.js';
import { placeOf } from '../../platform/geo/place.js';
import type { Place } from '../../platform/geo/place.js';
import { newOpaqueToken, sha256Base64url } from '../../platform/crypto/tokens.js';
import { refuse, TokenRefused } from '../../platform/errors.js';
import type { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { outcomeOf } from '../../platform/metrics/metrics.js';
import type { Metrics } from '../../platform/metrics/metrics.js';
import { signal } from '../../platform/signals/signal.js';
import { keysetPages, page } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import type { SecurityLog } from '../security-log/service.js';
import type { authLookupQueries, refreshTokenQueries, renewalQueries, sessionQueries, SessionRecord } from './queries.js';
import { renewalRefusal } from './statements.js';

export interface IssuedTokens {
  session_id: string;
  token_type: 'DPoP';
  access_token: string;
  expires_in: number;
  refresh_token: string;
  refresh_expires_in: number;
  trusted: boolean;
  schema_version: 1;
}

export interface SessionView {
  id: string;
  device_label: string;
  user_agent: string;
  place: Place | null;
  trusted: boolean;
  current: boolean;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

/** last_seen_at is written at most this often, so reads do not become writes. */
const LAST_SEEN_RESOLUTION_MS = 60_000;

export function createSessionService(deps: {
  db: RepositoryOf<{ sessions: typeof sessionQueries; refreshTokens: typeof refreshTokenQueries }>;
  authLookup: ReturnType<typeof authLookupQueries>;
  /** The renewal, the one writer of a rotation, its statements built once: one round trip on PostgreSQL, one transaction on SQLite (queries.ts). */
  renewal: ReturnType<typeof renewalQueries>;
  clock: Clock;
  tokens: Config['tokens'];
  securityLog: SecurityLog;
  metrics: Metrics;
}) {
  const { db, clock } = deps;
  const ttl = deps.tokens;
  /** RFC 9449 §7.1 / RFC 6750 §3: a 401 whose challenge names the error (the problem plugin writes it). */
  const invalidToken = (detail: string, code: 'invalid_token' | 'refresh_token_reused' = 'invalid_token') => refuse(code, detail);
  const accountLocked = () => refuse('account_locked', 'this account is locked by the service operator; contact them to have it unlocked');

  function tokensFor(session: { id: string; trusted: boolean; expires_at: number }, now: number) {
    const access = newOpaqueToken('at');
    const refresh = newOpaqueToken('rt');
    // Neither token outlives the session's absolute cap (12 h for ephemeral sessions).
    const accessExpiresAt = Math.min(now + ttl.accessTtlSeconds * 1000, session.expires_at);
    const refreshExpiresAt = Math.min(now + ttl.refreshTtlSeconds * 1000, session.expires_at);
    const issued: IssuedTokens = {
      session_id: session.id,
      token_type: 'DPoP',
      access_token: access,
      expires_in: Math.floor((accessExpiresAt - now) / 1000),
      refresh_token: refresh,
      refresh_expires_in: Math.floor((refreshExpiresAt - now) / 1000),
      trusted: session.trusted,
      schema_version: 1,
    };
    return { issued, accessHash: sha256Base64url(access), refreshHash: sha256Base64url(refresh), accessExpiresAt, refreshExpiresAt };
  }

  /** Revokes a session and tells the account's devices, in the caller's transaction. */
  async function revokeIn(tx: Tx, accountId: string, sessionId: string, now: number): Promise<boolean> {
    const revoked = await db.in(tx).sessions.revoke(accountId, sessionId, now);
    if (revoked) await signal(tx, accountId, 'sessions.changed');
    return revoked;
  }

  /**
   * Why the renewal statement (renewalQueries) matched no row: the refusal, counted. It writes
   * only what the refusal itself decides, in one transaction: a reuse revokes the session
   * (RFC 9700 §4.14.2), and an expired session's token is spent, so presenting it again is a reuse.
   */
  async function whyNotRenewed(hash: string, proofJkt: string, now: number): Promise<AppError> {
    const diagnosis = db.transaction(async (q, tx) => {
      const token = await q.refreshTokens.holder(hash);
      if (!token) return invalidToken('the refresh token is unknown');
      // The first condition of renewal's rule (statements.ts RENEWAL_RULE) the token fails.
      switch (renewalRefusal(token, { jkt: proofJkt, now })) {
        case 'ended': {
          const locked = token.jkt === proofJkt && (await q.sessions.accountLockedAt(token.account_id)) !== null;
          return locked ? accountLocked() : invalidToken('the session has ended');
        }
        case 'other_key':
          // Thrown, so the transaction writes nothing: a copy of the token without the key burns nothing.
          throw invalidToken('the refresh token is bound to another key');
        case 'used':
          await revokeIn(tx, token.account_id, token.session_id, now);
          return invalidToken('this refresh token was already used; the session is revoked', 'refresh_token_reused');
        case 'expired':
          await q.refreshTokens.spend(hash, now);
          return invalidToken('the session has expired');
        case undefined:
          // Unreachable: the statement carries exactly this rule, at the same `now`, and none of
          // its conditions ever goes from refusing back to allowing (a spent token stays spent, a
          // revoked session revoked, a session's key and ends do not change).
          throw new Error('renewal: the refresh token and its session allow it, yet the renewal statement matched no row');
      }
    });
    let refusal: AppError;
    try {
      refusal = await diagnosis;
    } catch (error) {
      deps.metrics.renewal(outcomeOf(error));
      throw error;
    }
    // The revocation above must commit, so the refusal is thrown after the transaction.
    // A reused refresh token means a stolen copy (the session is revoked): its own count, worth an alert.
    deps.metrics.renewal(refusal.code === 'refresh_token_reused' ? 'reused' : 'refused');
    return refusal;
  }

  function view(session: SessionRecord, currentId: string): SessionView {
    return {
      id: session.id,
      // From the user agent as it is read now, not the label stored when the session opened:
      // sessions opened before a better reading get it too.
      device_label: deviceLabel(session.user_agent),
      user_agent: session.user_agent,
      place: placeOf(session.location),
      trusted: session.trusted === 1,
      current: session.id === currentId,
      created_at: new Date(session.created_at).toISOString(),
      last_seen_at: new Date(session.last_seen_at).toISOString(),
      expires_at: new Date(Math.min(session.expires_at, session.refresh_expires_at)).toISOString(),
    };
  }

  return {
    revokeIn,
    /** Signs out every other device of the account, in the caller's transaction (account deletion). */
    async revokeOthersIn(tx: Tx, auth: AuthContext): Promise<void> {
      const revoked = await db.in(tx).sessions.revokeAllBut(auth.account.id, auth.sessionId, clock.now());
      if (revoked > 0) await signal(tx, auth.account.id, 'sessions.changed');
    },
    /** A lock (decision 090): every session of the account revoked, its devices told, in the lock's transaction. */
    async revokeAllForLockIn(tx: Tx, accountId: string): Promise<number> {
      const revoked = await db.in(tx).sessions.revokeAllForLock(accountId, clock.now());
      if (revoked > 0) await signal(tx, accountId, 'sessions.changed');
      return revoked;
    },
    /**
     * Opens a session inside the caller's transaction, bound to the device key `jkt`; `passkeyId`
     * is the passkey it signs in with (registered or asserted), none for a join without one.
     */
    async open(tx: Tx, input: { accountId: string; jkt: string; trusted: boolean; client: LocatedClient; passkeyId?: string }): Promise<IssuedTokens> {
      const q = db.in(tx);
      const now = clock.now();
      // Every way in (login, recovery, join) opens its session here: a locked account gets none.
      // Thrown inside the caller's transaction, so whatever the login spent rolls back.
      if ((await q.sessions.accountLockedAt(input.accountId)) !== null) throw accountLocked();
      const maxAge = (input.trusted ? ttl.trustedMaxAgeSeconds : ttl.ephemeralMaxAgeSeconds) * 1000;
      const id = newId('ses');
      const tokens = tokensFor({ id, trusted: input.trusted, expires_at: now + maxAge }, now);
      await q.sessions.insert({
        id,
        account_id: input.accountId,
        jkt: input.jkt,
        trusted: input.trusted ? 1 : 0,
        access_hash: tokens.accessHash,
        access_expires_at: tokens.accessExpiresAt,
        refresh_expires_at: tokens.refreshExpiresAt,
        expires_at: now + maxAge,
        created_at: now,
        last_seen_at: now,
        revoked_at: null,
        user_agent: input.client.userAgent,
        ip: input.client.ip,
        device_label: deviceLabel(input.client.userAgent),
        location: input.client.location,
        passkey_id: input.passkeyId ?? null,
      });
      await q.refreshTokens.insert(tokens.refreshHash, id, now);
      await signal(tx, input.accountId, 'sessions.changed');
      return tokens.issued;
    },

    /** Resolves an access token (by its hash, which is also the proof's ath) to its caller. */
    async authenticate(accessHash: string, proofJkt: string): Promise<AuthContext> {
      const row = await deps.authLookup.find(accessHash);
      const now = clock.now();
      if (!row) {
        // A lock revokes sessions but keeps their token hashes: the key's holder learns why.
        const holder = await db.direct.sessions.lockedHolder(accessHash);
        if (holder && holder.locked_at !== null && holder.jkt === proofJkt) throw accountLocked();
        throw new TokenRefused('unknown', 'the access token is unknown or revoked');
      }
      // RFC 9449 §7.1: the proof must be made with the key the token is bound to. Checked before
      // expiry, so only the key's holder hears "expired", the one refusal not counted as a failed
      // authentication (decision 003): another key presenting the token is a wrong guess.
      if (row.jkt !== proofJkt) throw new TokenRefused('other_key', 'the access token is bound to another key');
      if (row.access_expires_at <= now || row.expires_at <= now) throw new TokenRefused('expired', 'the access token has expired');
      // Locked between the token's lookup and the lock's revocation committing, or a session the lock missed.
      if (row.account.locked_at !== null) throw accountLocked();
      if (now - row.last_seen_at > LAST_SEEN_RESOLUTION_MS) await db.direct.sessions.touch(row.session_id, now);
      return { sessionId: row.session_id, jkt: row.jkt, trusted: row.trusted === 1, account: row.account };
    },

    /**
     * Rotates the refresh token (RFC 9700 §4.14.2). A token presented twice means one copy was
     * stolen: the whole session is revoked, the thief's and the owner's alike.
     */
    async renew(refreshToken: string, proofJkt: string): Promise<IssuedTokens> {
      const now = clock.now();
      const hash = sha256Base64url(refreshToken);
      const access = newOpaqueToken('at');
      const refresh = newOpaqueToken('rt');
      const renewed = await deps.renewal.atOnce({
        refreshHash: hash,
        jkt: proofJkt,
        now,
        accessHash: sha256Base64url(access),
        accessExpiresAt: now + ttl.accessTtlSeconds * 1000,
        newRefreshHash: sha256Base64url(refresh),
        refreshExpiresAt: now + ttl.refreshTtlSeconds * 1000,
      });
      // The renewal statement is the one writer of a rotation; when it matches no row, the
      // diagnosis says why (an unknown or reused token, another key, an ended session).
      if (!renewed) throw await whyNotRenewed(hash, proofJkt, now);
      deps.metrics.renewal('renewed');
      return {
        session_id: renewed.id,
        token_type: 'DPoP',
        access_token: access,
        expires_in: Math.floor((renewed.access_expires_at - now) / 1000),
        refresh_token: refresh,
        refresh_expires_in: Math.floor((renewed.refresh_expires_at - now) / 1000),
        trusted: renewed.trusted === 1,
        schema_version: 1,
      };
    },

    /** Every session, live or ended, a page at a time (the account export). */
    async *exportPages(accountId: string): AsyncIterable<object[]> {
      const iso = (t: number) => new Date(t).toISOString();
      for await (const rows of keysetPages((after, limit) => db.direct.sessions.all(accountId, after, limit), (row) => row)) {
        yield rows.map((row) => ({
          id: row.id,
          device_label: deviceLabel(row.user_agent),
          user_agent: row.user_agent,
          ip: row.ip,
          location: row.location,
          passkey_id: row.passkey_id,
          trusted: row.trusted === 1,
          created_at: iso(row.created_at),
          last_seen_at: iso(row.last_seen_at),
          expires_at: iso(Math.min(row.expires_at, row.refresh_expires_at)),
          revoked_at: row.revoked_at === null ? null : iso(row.revoked_at),
        }));
      }
    },
    /** The purge (PRODUCT §8): sessions and their refresh tokens. */
    async erase(tx: Tx, accountId: string): Promise<void> {
      await db.in(tx).sessions.removeAll(accountId);
    },

    /** The passkey the caller's session signed in with, if one did ("this device" in the passkey list). */
    signInPasskeyOf: (auth: AuthContext): Promise<string | null> => db.direct.sessions.passkeyOf(auth.sessionId),

    async list(auth: AuthContext, cursor: string | undefined, limit: number): Promise<Page<SessionView>> {
      return page((after, size) => db.direct.sessions.listLive(auth.account.id, clock.now(), after, size), cursor, limit, (row) => view(row, auth.sessionId));
    },

    async revoke(auth: AuthContext, sessionId: string, client: LocatedClient): Promise<void> {
      const revoked = await db.transaction(async (_, tx) => {
        const done = await revokeIn(tx, auth.account.id, sessionId, clock.now());
        if (done) await deps.securityLog.record(tx, auth.account.id, 'session_revoked', client);
        return done;
      });
      // Another account's session id answers like an unknown one: ids cannot be probed.
      if (!revoked) throw refuse('session_not_found', 'no live session of yours has this id');
    },

    async logout(auth: AuthContext): Promise<void> {
      await db.transaction((_, tx) => revokeIn(tx, auth.account.id, auth.sessionId, clock.now()));
    },

    /** A stream lives no longer than the access token that opened it (nor its session). */
    async streamExpiry(sessionId: string): Promise<number> {
      const session = await db.direct.sessions.findById(sessionId);
      return session ? Math.min(session.access_expires_at, session.expires_at) : 0;
    },

    /** May this session keep a stream open? Not once revoked or expired, nor while its account is deleted (PRODUCT §8). */
    async isLive(sessionId: string, now: number): Promise<boolean> {
      const state = await db.direct.sessions.streamState(sessionId);
      return !!state && state.revoked_at === null && state.expires_at > now && state.deleted_at === null && state.locked_at === null;
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
