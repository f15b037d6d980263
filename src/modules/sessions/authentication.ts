import type { AuthContext } from '../../platform/caller.js';
import { TokenRefused } from '../../platform/errors.js';
import { accountLocked } from './session-deps.js';
import type { SessionDeps } from './session-deps.js';

/** last_seen_at is written at most this often, so reads do not become writes. */
const LAST_SEEN_RESOLUTION_MS = 60_000;

/** The authenticated lookup: an access token to its caller on every request, and whether a stream may stay open. */
export function createSessionAuthentication(deps: Pick<SessionDeps, 'db' | 'authLookup' | 'clock'>) {
  const { db, clock } = deps;
  return {
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
