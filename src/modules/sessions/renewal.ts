import { newOpaqueToken, sha256Base64url } from '../../platform/crypto/tokens.js';
import type { AppError } from '../../platform/errors.js';
import { outcomeOf } from '../../platform/metrics/metrics.js';
import { accountLocked, invalidToken } from './session-deps.js';
import type { IssuedTokens, SessionDeps } from './session-deps.js';
import type { SessionRevocation } from './revocation.js';
import { renewalRefusal } from './statements.js';

/**
 * Rotating the refresh token (RFC 9700 §4.14.2): the renewal statement (renewalQueries) writes
 * the rotation; when it matches no row, the diagnosis says why and writes what the refusal decides.
 */
export function createSessionRenewal(deps: Pick<SessionDeps, 'db' | 'renewal' | 'clock' | 'tokens' | 'metrics'>, revokeIn: SessionRevocation['revokeIn']) {
  const { db, clock } = deps;
  const ttl = deps.tokens;

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

  return {
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
  };
}
