import type { AuthContext } from '../../platform/caller.js';
import { deviceLabel } from '../../platform/client-info.js';
import { placeOf } from '../../platform/geo/place.js';
import { keysetPages, page } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import type { Tx } from '../../platform/store/store.js';
import type { SessionRecord } from './queries.js';
import type { SessionDeps, SessionView } from './session-deps.js';

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

/** An account's sessions as it sees them: the session list, the export, the purge, the sign-in passkey. */
export function createSessionListing(deps: Pick<SessionDeps, 'db' | 'clock'>) {
  const { db, clock } = deps;
  return {
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
  };
}
