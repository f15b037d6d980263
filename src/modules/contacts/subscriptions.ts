import { createSubscriptionCore } from './subscription-core.js';
import type { SubscriptionDeps } from './subscription-core.js';
import { createSubscriptionDecisions } from './subscription-decisions.js';
import { createSubscriptionReactions } from './subscription-reactions.js';
import { createSubscriptionRequests } from './subscription-requests.js';

export { CONTACT_LIMITS, invalidTransition } from './subscription-core.js';
export type { BlockView, MembershipChange, SubscribeInput } from './subscription-core.js';

/**
 * Subscriptions, the owner's side (PRODUCT §4), and subscribing itself. Every transition is one
 * conditional update from the state table (states.ts); its signals go in the same transaction:
 * subscriptions.changed to the owner, contacts.changed to the subscriber, contact.card.changed
 * when a move changed what the subscriber sees. (An edit of a card is not told here: it is one
 * row of the card-change log that every follower's feed reads, decision 220.) Put together from
 * requests (subscription-requests.ts), the owner's decisions (subscription-decisions.ts) and the
 * reactions to other changes (subscription-reactions.ts), over what they share
 * (subscription-core.ts).
 */
export function createSubscriptionService(deps: SubscriptionDeps) {
  const core = createSubscriptionCore(deps);
  return { ...createSubscriptionRequests(core), ...createSubscriptionDecisions(core), ...createSubscriptionReactions(core) };
}

export type SubscriptionService = ReturnType<typeof createSubscriptionService>;
