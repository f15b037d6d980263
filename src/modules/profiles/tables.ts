// The profiles module's tables as the database holds them: its queries use them, and another
// module's query that joins one of them names its rows from here (never from queries.ts).

/** Profiles and exposures (006-profiles). */
export interface ProfilesTable {
  id: string;
  account_id: string;
  name: string;
  /** The name compared ignoring case (unique per account). */
  name_key: string;
  description: string | null;
  public: number;
  version: number;
  created_at: number;
  updated_at: number;
  card_json: string;
  card_hash: string;
  card_etag: string;
  card_updated_at: number;
}

export interface ProfileExposuresTable {
  profile_id: string;
  field_id: string;
  account_id: string;
  label: string | null;
  position: number;
  created_at: number;
}
