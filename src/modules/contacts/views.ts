import type { ContactAccess, SubscriptionRow } from './queries.js';
import { isActive, LIVE_TO_SUBSCRIBER, SEEN_BY_SUBSCRIBER } from './states.js';
import type { OwnerStatus, SeenStatus, SubscriptionStatus } from './states.js';

/** A person as either side names the other: with their region, which tells `alice@eu` from `alice@us` (PRODUCT §10). */
export interface Person {
  username: string;
  display_name: string | null;
  region: string;
}

/** The owner's view of a subscription (PRODUCT §4). */
export interface SubscriptionView {
  id: string;
  status: OwnerStatus;
  subscriber: Person;
  profile_id: string | null;
  message: string | null;
  /** The share link the request came through: its id and the owner's label for it. */
  via_share_link: { id: string; label: string | null } | null;
  /** That link's profile, which a client preselects when approving (PRODUCT §4). */
  suggested_profile_id: string | null;
  created_at: string;
  updated_at: string;
  version: number;
  schema_version: 1;
}

/** The subscriber's view of the same row: never which profile it sees (PRODUCT §4, privacy). */
export interface ContactView {
  id: string;
  status: SeenStatus | 'unavailable';
  owner: Person;
  message: string | null;
  labels: string[];
  card_updated_at: string | null;
  /**
   * Only for a contact in another region that has not been heard from for longer than the bound
   * (decision 352): when it last was. Its card is the last copy received, which may no longer be current.
   */
  not_current_since?: string;
  created_at: string;
  updated_at: string;
  version: number;
  schema_version: 1;
}

/** When a region was last heard from, if longer ago than the bound; undefined for this region or one heard of lately. */
export type RegionSilence = (region: string) => number | undefined;

const iso = (t: number) => new Date(t).toISOString();

export function subscriptionView(row: SubscriptionRow): SubscriptionView {
  return {
    id: row.id,
    status: row.status as OwnerStatus,
    subscriber: { username: row.other_username, display_name: row.other_display_name, region: row.other_region },
    profile_id: row.profile_id,
    message: row.message,
    via_share_link: row.share_link_id === null ? null : { id: row.share_link_id, label: row.share_link_label },
    suggested_profile_id: row.suggested_profile_id,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    version: row.version,
    schema_version: 1,
  };
}

/**
 * When a contact's card last changed for its subscriber: when its profile's card changed, or
 * when the subscriber started seeing that profile (approval, move), whichever is later.
 */
export function cardChangedAt(row: { status: string; card_since: number | null; card_updated_at?: number | null; profile_card_updated_at?: number | null }): number | null {
  const profileAt = row.card_updated_at ?? row.profile_card_updated_at ?? null;
  if (!isActive(row.status) || profileAt === null) return null;
  return Math.max(profileAt, row.card_since ?? 0);
}

/** Whether the audience rule (queries.ts) shows the subscriber this contact's card and keys. */
export const isShown = (row: { access?: ContactAccess }): boolean => row.access === 'shown';

/** The card a contact shows its subscriber, as stored (JSON), when the audience rule shows one; else null. */
export const shownCardJson = (row: { access?: ContactAccess; card_json: string | null }): string | null => (isShown(row) ? row.card_json : null);

/** The subscriber's view of a contact; `row.access` is the audience rule's answer (queries.ts). */
export function contactView(row: SubscriptionRow, labels: string[], silence?: RegionSilence): ContactView {
  // PRODUCT §4: while the owner's account is deleted (or locked, decision 090) a live subscription
  // shows `unavailable`: a name for the subscription's state, pending ones too. Whether its card
  // is seen, and so has a card_updated_at, is the audience rule's to say.
  const status = row.status as SubscriptionStatus;
  const unavailable = (row.other_deleted_at !== null || row.other_locked_at !== null) && (LIVE_TO_SUBSCRIBER as readonly string[]).includes(status);
  const changed = isShown(row) ? cardChangedAt(row) : null;
  // Silent refusals (PRODUCT §4): a request reads pending until it is approved or ends, whatever
  // the owner did with it: not updated since it was made, as a request not yet answered; and its
  // version never counts what the subscriber must not hear of (a denial, a block lifted).
  const waiting = SEEN_BY_SUBSCRIBER[status] === 'pending';
  const silentSince = silence?.(row.other_region);
  return {
    id: row.id,
    status: unavailable ? 'unavailable' : SEEN_BY_SUBSCRIBER[status],
    owner: { username: row.other_username, display_name: row.other_display_name, region: row.other_region },
    message: row.message,
    labels,
    card_updated_at: changed === null ? null : iso(changed),
    ...(silentSince === undefined ? {} : { not_current_since: iso(silentSince) }),
    created_at: iso(row.created_at),
    updated_at: iso(waiting ? row.created_at : row.updated_at),
    version: row.version - row.silent_changes,
    schema_version: 1,
  };
}
