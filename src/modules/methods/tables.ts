// The methods module's tables as the database holds them: its queries use them, and another
// module's query that joins one of them names its rows from here (never from queries.ts).

/** Passkeys (001-foundation) and TOTP authenticators (004-account-security): the account's methods. */
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
