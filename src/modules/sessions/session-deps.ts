import type { Clock } from '../../platform/clock.js';
import type { Config } from '../../platform/config.js';
import { refuse } from '../../platform/errors.js';
import type { Place } from '../../platform/geo/place.js';
import type { Metrics } from '../../platform/metrics/metrics.js';
import type { RepositoryOf } from '../../platform/store/store.js';
import type { SecurityLog } from '../security-log/service.js';
import type { authLookupQueries, refreshTokenQueries, renewalQueries, sessionQueries } from './queries.js';

/** What the session service is built from (module.ts passes it in). */
export interface SessionDeps {
  db: RepositoryOf<{ sessions: typeof sessionQueries; refreshTokens: typeof refreshTokenQueries }>;
  authLookup: ReturnType<typeof authLookupQueries>;
  /** The renewal, the one writer of a rotation, its statements built once: one round trip on PostgreSQL, one transaction on SQLite (queries.ts). */
  renewal: ReturnType<typeof renewalQueries>;
  clock: Clock;
  tokens: Config['tokens'];
  securityLog: SecurityLog;
  metrics: Metrics;
}

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

/** RFC 9449 §7.1 / RFC 6750 §3: a 401 whose challenge names the error (the problem plugin writes it). */
export const invalidToken = (detail: string, code: 'invalid_token' | 'refresh_token_reused' = 'invalid_token') => refuse(code, detail);
export const accountLocked = () => refuse('account_locked', 'this account is locked by the service operator; contact them to have it unlocked');
