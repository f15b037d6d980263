// The contacts module's tables as the database holds them: its queries use them, and another
// module's query that joins one of them names its rows from here (never from queries.ts).

/** Subscriptions, blocks and annotations (007-subscriptions). */
export interface SubscriptionsTable {
  id: string;
  owner_id: string;
  subscriber_id: string;
  profile_id: string | null;
  status: string;
  message: string | null;
  share_link_id: string | null;
  /** The link's label when the request was made (024-request-links). */
  share_link_label: string | null;
  /** The link's profile, kept across a profile's delete with move_to (024-request-links). */
  suggested_profile_id: string | null;
  version: number;
  created_at: number;
  updated_at: number;
  card_since: number | null;
  /** What changed for the subscriber at card_since, a JSON array of kinds (017-card-changes); null before it. */
  card_changes: string | null;
  hidden_at: number | null;
  /** Changes the subscriber must not hear of, counted in `version` too: a denial, a block lifted (023, silent refusals). */
  silent_changes: number;
  /** Owner's side: the region of a subscriber from elsewhere; null for one of this region (028, decision 352). */
  subscriber_region: string | null;
  /** Subscriber's side of a contact from elsewhere: the owner region's version last applied (028). */
  remote_version: number | null;
}

/**
 * The statuses that hold a pair's one live subscription (the unique index of migration 023, in
 * its order, which queries repeat literally so SQLite uses it): waiting as far as the subscriber
 * can tell, or active.
 */
export const LIVE_PAIR_STATUSES = ['pending', 'active', 'denied', 'silenced'] as const;

/**
 * The status whose subscriber receives the owner's card (one profile's) now: the "active
 * subscription" predicate, named once. The state table reaches it (states.ts, approve and move),
 * the queries test it (queries.ts: a parameter where a plan allows, a literal in the audience
 * rule and the live-pair probes) and the code compares with it (isActive, states.ts).
 */
export const ACTIVE_STATUS = 'active' as const;

/**
 * The statuses a contact has ended in, for its subscriber: nothing left to unsubscribe from,
 * only to remove from the list (the subscriber's `hide`).
 */
export const ENDED_STATUSES = ['ended', 'revoked'] as const;

export interface BlocksTable {
  owner_id: string;
  blocked_id: string;
  created_at: number;
}

export interface AnnotationsTable {
  subscription_id: string;
  author_id: string;
  note: string;
  /** JSON array, in the author's order. */
  labels: string;
  version: number;
  created_at: number;
  updated_at: number;
}

export interface AnnotationLabelsTable {
  subscription_id: string;
  author_id: string;
  label: string;
  label_key: string;
}
