import type { Clock } from '../../platform/clock.js';
import type { Locate } from '../../platform/geo/locate.js';
import { newId } from '../../platform/ids.js';
import type { SecurityLogRecord, Store, StoreQueries } from '../../platform/store/store.js';
import type { ClientInfo } from '../../platform/client-info.js';
import { decodeCursor, toPage } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import type { AuthContext } from '../sessions/service.js';

/** What a person can read about their account's security (issue: sign-ins, methods, recovery, revocations). */
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
  | 'session_revoked';

export interface SecurityLogEntry {
  id: string;
  kind: string;
  at: string;
  ip: string;
  location: string | null;
  user_agent: string;
}

/** Where a client was: resolved before a transaction opens, so no lookup holds a database lock. */
export interface LocatedClient extends ClientInfo {
  location: string | null;
}

export function createSecurityLog(deps: { store: Store; clock: Clock; locate: Locate }) {
  return {
    async locate(client: ClientInfo): Promise<LocatedClient> {
      return { ...client, location: await deps.locate(client.ip) };
    },
    async record(tx: StoreQueries, accountId: string, kind: SecurityEventKind, client: LocatedClient): Promise<void> {
      await tx.securityLog.insert({
        id: newId('sec'),
        account_id: accountId,
        kind,
        created_at: deps.clock.now(),
        ip: client.ip,
        location: client.location,
        user_agent: client.userAgent,
        detail: null,
      });
    },
    async list(auth: AuthContext, cursor: string | undefined, limit: number): Promise<Page<SecurityLogEntry>> {
      const rows = await deps.store.securityLog.list(auth.account.id, decodeCursor(cursor), limit + 1);
      return toPage(rows, limit, (row: SecurityLogRecord) => ({
        id: row.id,
        kind: row.kind,
        at: new Date(row.created_at).toISOString(),
        ip: row.ip,
        location: row.location,
        user_agent: row.user_agent,
      }));
    },
  };
}

export type SecurityLog = ReturnType<typeof createSecurityLog>;
