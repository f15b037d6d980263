/**
 * Table shapes as Kysely sees them. Times are integer milliseconds since the epoch and booleans
 * are 0/1 integers on both dialects, so one query serves SQLite and PostgreSQL alike.
 */
export interface AccountsTable {
  id: string;
  username: string;
  username_canonical: string;
  username_skeleton: string;
  /** The capitals comparison key (013-username-keys, docs/decisions/007-usernames.md); null: none. */
  username_skeleton_upper: string | null;
  user_handle: string;
  display_name: string | null;
  locale: string | null;
  default_country: string | null;
  region: string;
  version: number;
  created_at: number;
  /** PRODUCT §8 (010-lifecycle): set by DELETE /account, cleared by undelete. */
  deleted_at: number | null;
  /** When the purge may erase it (deleted_at + the grace). */
  purge_at: number | null;
  /** Set by the purge: the row is a tombstone holding only the username (and its skeleton). */
  purged_at: number | null;
  /** Until when the purged account's username stays taken; null once released. */
  hold_until: number | null;
  /** Set by an operator's lock (012-account-locks): every request and login refused, cleared by unlock. */
  locked_at: number | null;
  /** Why the operator locked it: for operators only, never shown to anyone else. */
  lock_reason: string | null;
}

export interface CeremoniesTable {
  id: string;
  kind: string;
  challenge: string;
  username: string | null;
  user_handle: string | null;
  account_id: string | null;
  session_id: string | null;
  expires_at: number;
}

export interface IdempotencyRecordsTable {
  scope: string;
  idem_key: string;
  fingerprint: string;
  state: string;
  status: number | null;
  body: string | null;
  headers: string | null;
  locked_until: number;
  expires_at: number;
}

export interface DpopJtisTable {
  jti_hash: string;
  expires_at: number;
}

/** The signal log (table name from 002-events). */
export interface EventsTable {
  account_id: string;
  seq: number;
  kind: string;
  resource: string;
  created_at: number;
}

export interface PlatformTables {
  accounts: AccountsTable;
  ceremonies: CeremoniesTable;
  idempotency_records: IdempotencyRecordsTable;
  dpop_jtis: DpopJtisTable;
  events: EventsTable;
}
