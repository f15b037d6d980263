import { deviceLabel } from '../../platform/client-info.js';
import type { LocatedClient } from '../../platform/client-info.js';
import type { Config } from '../../platform/config.js';
import { newOpaqueToken, sha256Base64url } from '../../platform/crypto/tokens.js';
import { newId } from '../../platform/ids.js';
import { accountRowsHeld, signal } from '../../platform/signals/signal.js';
import type { Tx } from '../../platform/store/store.js';
import { accountLocked } from './session-deps.js';
import type { IssuedTokens, SessionDeps } from './session-deps.js';

function tokensFor(ttl: Config['tokens'], session: { id: string; trusted: boolean; expires_at: number }, now: number) {
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

/** Opening a session: every way in (login, recovery, join) ends here, with its first tokens. */
export function createSessionOpening(deps: Pick<SessionDeps, 'db' | 'clock' | 'tokens'>) {
  const { db, clock } = deps;
  const ttl = deps.tokens;
  return {
    /**
     * Opens a session inside the caller's transaction, bound to the device key `jkt`; `passkeyId`
     * is the passkey it signs in with (registered or asserted), none for a join without one.
     */
    async open(tx: Tx, input: { accountId: string; jkt: string; trusted: boolean; client: LocatedClient; passkeyId?: string }): Promise<IssuedTokens> {
      const q = db.in(tx);
      const now = clock.now();
      const maxAge = (input.trusted ? ttl.trustedMaxAgeSeconds : ttl.ephemeralMaxAgeSeconds) * 1000;
      const id = newId('ses');
      const tokens = tokensFor(ttl, { id, trusted: input.trusted, expires_at: now + maxAge }, now);
      // Every way in (login, recovery, join) opens its session here: a locked account gets none.
      // Thrown inside the caller's transaction, so whatever the login spent rolls back.
      const lockedAt = await q.sessions.openUnlessLocked({
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
        refreshHash: tokens.refreshHash,
      });
      if (lockedAt !== null) throw accountLocked();
      // PostgreSQL: the opening took the account's row FOR UPDATE (queries.ts openUnlessLocked).
      if (tx.dialect === 'postgres') accountRowsHeld(tx, [input.accountId]);
      await signal(tx, input.accountId, 'sessions.changed');
      return tokens.issued;
    },
  };
}
