import { ACTIVE_STATUS, ENDED_STATUSES, LIVE_PAIR_STATUSES } from './tables.js';

/**
 * The subscription state machine (PRODUCT §4), as a table: each action names the side that
 * may take it, the states it leaves and the state it reaches. The service applies a row with
 * one conditional update; the docs' state diagram and the refused-transition tests read it.
 * `unavailable` is not stored: a subscriber sees it while the owner's account is deleted.
 */
export type SubscriptionStatus = 'pending' | 'active' | 'denied' | 'revoked' | 'ended' | 'silenced';

/**
 * approve … unsubscribe: the routes; unblock: the owner lifting a block (DELETE /blocks/{username})
 * lets the person's request through; expire: an unanswered request ends after 30 days (PRODUCT §4).
 */
export type Action = 'approve' | 'deny' | 'move' | 'revoke' | 'unsubscribe' | 'unblock' | 'expire';

export const TRANSITIONS = {
  approve: { by: 'owner', from: ['pending'], to: 'active' },
  deny: { by: 'owner', from: ['pending'], to: 'denied' },
  move: { by: 'owner', from: ['active'], to: 'active' },
  revoke: { by: 'owner', from: ['active'], to: 'revoked' },
  unsubscribe: { by: 'subscriber', from: ['pending', 'active', 'denied', 'silenced'], to: 'ended' },
  unblock: { by: 'owner', from: ['silenced'], to: 'pending' },
  expire: { by: 'time', from: ['pending', 'denied', 'silenced'], to: 'ended' },
} as const satisfies Record<Action, { by: 'owner' | 'subscriber' | 'time'; from: readonly SubscriptionStatus[]; to: SubscriptionStatus }>;

/** What the owner ever sees: everything but a blocked person's request (silenced). */
export type OwnerStatus = Exclude<SubscriptionStatus, 'silenced'>;
export const STATUSES: readonly OwnerStatus[] = ['pending', 'active', 'denied', 'revoked', 'ended'];

/** Days a request may wait unanswered (pending, or denied and silenced, which look the same to its maker). */
export const UNANSWERED_DAYS = 30;

/**
 * Silent refusals (PRODUCT §4): the status a subscriber reads for each stored one. A denied
 * request, and one a blocked person made (silenced), read as pending, the same as a request not
 * yet answered; everything else as it is.
 */
export const SEEN_BY_SUBSCRIBER = {
  pending: 'pending',
  active: 'active',
  denied: 'pending',
  silenced: 'pending',
  revoked: 'revoked',
  ended: 'ended',
} as const satisfies Record<SubscriptionStatus, SubscriptionStatus>;

export type SeenStatus = (typeof SEEN_BY_SUBSCRIBER)[SubscriptionStatus];

/** The stored statuses a subscriber reads as `seen` (the subscriber's ?status= filter). */
export function storedAs(seen: SubscriptionStatus): SubscriptionStatus[] {
  return (Object.keys(SEEN_BY_SUBSCRIBER) as SubscriptionStatus[]).filter((status) => SEEN_BY_SUBSCRIBER[status] === seen);
}

/** A request that looks pending to its maker, whatever the owner did with it. */
export const LOOKS_PENDING = storedAs('pending');
/**
 * Live to the subscriber: waiting (as far as it can tell) or active. One per pair: the unique
 * live-pair index's condition (migration 023), in its order, which queries repeat literally.
 */
export const LIVE_TO_SUBSCRIBER = LIVE_PAIR_STATUSES satisfies readonly SubscriptionStatus[];
/** Live to the owner: a request it can answer, or an active subscriber. */
export const LIVE_TO_OWNER: readonly SubscriptionStatus[] = ['pending', ACTIVE_STATUS];
/** Live and seen by the owner: the live pair but a blocked person's request (silenced), which it never saw. */
export const LIVE_SEEN_BY_OWNER: readonly SubscriptionStatus[] = LIVE_TO_SUBSCRIBER.filter((status) => status !== 'silenced');

/**
 * The subscription predicates, named once (the queries test the same constants, tables.ts):
 * active, its subscriber receives the card of the profile it is on; ended, nothing left for the
 * subscriber to unsubscribe from (the complement of unsubscribe's `from`).
 */
export const ACTIVE = ACTIVE_STATUS satisfies SubscriptionStatus;
export const ENDED = ENDED_STATUSES satisfies readonly SubscriptionStatus[];
export const isActive = (status: string): boolean => status === ACTIVE;

/** The table as a Mermaid state diagram (docs/contacts.md). */
export function stateDiagram(): string {
  const lines = ['stateDiagram-v2', '  [*] --> pending: subscribe', '  [*] --> active: redeem a link with auto-approve', '  [*] --> silenced: subscribe while blocked (reads pending)'];
  for (const [action, rule] of Object.entries(TRANSITIONS)) for (const from of rule.from) lines.push(`  ${from} --> ${rule.to}: ${action} (${rule.by})`);
  return lines.join('\n');
}
