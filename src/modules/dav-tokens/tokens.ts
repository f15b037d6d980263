import type { Clock } from '../../platform/clock.js';
import type { AttemptLimiter } from '../../platform/limits/attempt-limiter.js';
import type { AuthFailureLimits } from '../../platform/limits/auth-failures.js';
import type { RepositoryOf } from '../../platform/store/store.js';
import type { SecurityLog } from '../security-log/service.js';
import type { davTokenQueries } from './queries.js';

/** Who an address book's request speaks for: the account, its username now, and the password used. */
export interface DavPrincipal {
  accountId: string;
  username: string;
  tokenId: string;
}

export interface DavTokenView {
  id: string;
  label: string;
  created_at: string;
  last_used_at: string | null;
  last_user_agent: string | null;
  device_label: string | null;
  schema_version: 1;
}

export interface CreatedDavToken {
  id: string;
  label: string;
  secret: string;
  username: string;
  server_url: string;
  created_at: string;
  schema_version: 1;
}

/** A use is stamped at most once a minute per password: no write per request (PRODUCT §9). */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** What the address-book password service is built from (module.ts passes it whole). */
export interface DavTokenDeps {
  db: RepositoryOf<{ tokens: typeof davTokenQueries }>;
  clock: Clock;
  /** Keys the password hashes, derived from each key of the ring, the current one first (decision 110). */
  tokenKeys: readonly Buffer[];
  /** Where the CardDAV server answers: PUBLIC_ORIGIN. */
  publicOrigin: string;
  securityLog: SecurityLog;
  /** The canonical form of a typed username (the usernames service), undefined when it cannot be one. */
  canonicalOf(username: string): string | undefined;
  limiter: AttemptLimiter;
  /** Failed sign-ins allowed per client address and per password id in a minute. */
  failureLimits: AuthFailureLimits;
  warn(error: unknown, what: string): void;
}

export const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
