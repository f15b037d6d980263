import type { AuthContext } from '../../platform/caller.js';
import { deviceLabel } from '../../platform/client-info.js';
import type { LocatedClient } from '../../platform/client-info.js';
import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/ids.js';
import { keysetPages, page } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import type { SecurityLogRecord, securityLogQueries } from './queries.js';

/** What a person can read about their account's security (sign-ins, methods, recovery, revocations). */
export type SecurityEventKind =
  | 'account_created'
  | 'signed_in'
  | 'passkey_added'
  | 'passkey_renamed'
  | 'passkey_removed'
  | 'totp_added'
  | 'totp_confirmed'
  | 'totp_removed'
  | 'recovery_key_downloaded'
  | 'recovery_succeeded'
  | 'recovery_failed'
  | 'join_factor_failed'
  | 'session_revoked'
  | 'dav_token_created'
  | 'dav_token_revoked'
  | 'account_deleted'
  | 'account_restored'
  | 'account_locked'
  | 'account_unlocked';

export interface SecurityLogEntry {
  id: string;
  kind: string;
  at: string;
  ip: string;
  location: string | null;
  user_agent: string;
  device_label: string;
}

function entryOf(row: SecurityLogRecord): SecurityLogEntry {
  return {
    id: row.id,
    kind: row.kind,
    at: new Date(row.created_at).toISOString(),
    ip: row.ip,
    location: row.location,
    user_agent: row.user_agent,
    device_label: deviceLabel(row.user_agent),
  };
}

export function createSecurityLog(deps: { db: RepositoryOf<{ log: typeof securityLogQueries }>; clock: Clock }) {
  const { db, clock } = deps;
  return {
    /** The whole log, newest first, a page at a time (the account export). */
    async *exportPages(accountId: string): AsyncIterable<SecurityLogEntry[]> {
      for await (const rows of keysetPages((after, limit) => db.direct.log.list(accountId, after, limit), (row) => row)) yield rows.map(entryOf);
    },
    /** The purge (PRODUCT §8). */
    async erase(tx: Tx, accountId: string): Promise<void> {
      await db.in(tx).log.removeAll(accountId);
    },
    /** Written in the transaction of what it records. */
    async record(tx: Tx, accountId: string, kind: SecurityEventKind, client: LocatedClient): Promise<void> {
      await db.in(tx).log.insert({
        id: newId('sec'),
        account_id: accountId,
        kind,
        created_at: clock.now(),
        ip: client.ip,
        location: client.location,
        user_agent: client.userAgent,
        detail: null,
      });
    },
    async list(auth: AuthContext, cursor: string | undefined, limit: number): Promise<Page<SecurityLogEntry>> {
      return page((after, size) => db.direct.log.list(auth.account.id, after, size), cursor, limit, entryOf);
    },
  };
}

export type SecurityLog = ReturnType<typeof createSecurityLog>;
