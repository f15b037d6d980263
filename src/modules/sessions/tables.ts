// The sessions module's tables, apart from its statements and queries so both can read them.
import type { Selectable } from 'kysely';

/** Sessions and their rotating refresh tokens (001-foundation). */
export interface SessionsTable {
  id: string;
  account_id: string;
  jkt: string;
  trusted: number;
  access_hash: string | null;
  access_expires_at: number;
  refresh_expires_at: number;
  expires_at: number;
  created_at: number;
  last_seen_at: number;
  revoked_at: number | null;
  user_agent: string;
  ip: string;
  device_label: string;
  /** Approximate place when the session opened ("Berlin, DE"), null when unknown (015-session-devices). */
  location: string | null;
  /** The passkey the session signed in with, null when none did (015-session-devices). */
  passkey_id: string | null;
}

export interface RefreshTokensTable {
  hash: string;
  session_id: string;
  created_at: number;
  used_at: number | null;
}

export type SessionRecord = Selectable<SessionsTable>;
