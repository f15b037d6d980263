import type { Generated } from 'kysely';

/**
 * Table shapes as Kysely sees them. Times are integer milliseconds since the epoch and booleans
 * are 0/1 integers on both dialects, so one query serves SQLite and PostgreSQL alike.
 */
export interface AccountsTable {
  id: string;
  username: string;
  username_canonical: string;
  username_skeleton: string;
  user_handle: string;
  display_name: string | null;
  locale: string | null;
  default_country: string | null;
  region: string;
  version: number;
  created_at: number;
  event_seq: Generated<number>;
}

export interface PasskeysTable {
  id: string;
  account_id: string;
  credential_id: string;
  public_key: string;
  counter: number;
  transports: string;
  backup_eligible: number;
  backed_up: number;
  aaguid: string;
  name: string;
  dpop_jkt: string;
  version: number;
  created_at: number;
  last_used_at: number | null;
  flagged_at: number | null;
}

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
}

export interface RefreshTokensTable {
  hash: string;
  session_id: string;
  created_at: number;
  used_at: number | null;
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

export interface EventsTable {
  account_id: string;
  seq: number;
  kind: string;
  resource: string;
  created_at: number;
}

export interface TotpAuthenticatorsTable {
  id: string;
  account_id: string;
  name: string;
  secret_sealed: string;
  active: number;
  last_step: number | null;
  version: number;
  created_at: number;
  confirmed_at: number | null;
  last_used_at: number | null;
}

export interface RecoveryKeysTable {
  account_id: string;
  key_sealed: string;
  verifier: string;
  created_at: number;
}

export interface SecurityLogTable {
  id: string;
  account_id: string;
  kind: string;
  created_at: number;
  ip: string;
  location: string | null;
  user_agent: string;
  detail: string | null;
}

export interface JoinCodesTable {
  id: string;
  account_id: string;
  session_id: string;
  code_hash: string;
  failures: Generated<number>;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  voided_at: number | null;
}

export interface JoinAttemptsTable {
  id: string;
  account_id: string;
  via: string;
  jkt: string;
  status: string;
  challenge: string | null;
  ip: string;
  location: string | null;
  user_agent: string;
  created_at: number;
  expires_at: number;
  decided_at: number | null;
  decided_by: string | null;
  finished_at: number | null;
}

export interface FieldsTable {
  id: string;
  account_id: string;
  type: string;
  label: string | null;
  country: string | null;
  /** The normalised value, JSON. */
  value: string;
  /** What the person typed, JSON; null when normalising changed nothing. */
  input: string | null;
  /** Facts derived while normalising (line type, formatted forms), JSON. */
  details: string;
  version: number;
  created_at: number;
  updated_at: number;
}

export interface Database {
  accounts: AccountsTable;
  passkeys: PasskeysTable;
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  ceremonies: CeremoniesTable;
  idempotency_records: IdempotencyRecordsTable;
  dpop_jtis: DpopJtisTable;
  events: EventsTable;
  totp_authenticators: TotpAuthenticatorsTable;
  recovery_keys: RecoveryKeysTable;
  security_log: SecurityLogTable;
  fields: FieldsTable;
  join_codes: JoinCodesTable;
  join_attempts: JoinAttemptsTable;
}
