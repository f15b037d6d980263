// The fields module's tables as the database holds them: its queries use them, and another
// module's query that joins one of them names its rows from here (never from queries.ts).

/** Identity fields (003-identity-fields). */
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
