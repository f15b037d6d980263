import type { ModuleServices } from '../platform/module.js';

/**
 * The product's core flow, in one place: who announces a change and who follows it. Every hook
 * below runs inside the announcing change's transaction, so a change and all that follows from
 * it commit together or not at all (the hooks are `txHook`s, platform/hooks.ts).
 *
 *   a field is added, edited or deleted (fields)  ─┐
 *   the display name changes (me)                  ─┴→ profiles re-render every card that shows it,
 *                                                      and a card's `updated_at` moves only when
 *                                                      what it shows changed (profiles/card.ts)
 *   a profile is removed (profiles)                 → its subscribers and share links move to
 *                                                      `move_to`, or the delete is refused
 *                                                      (contacts, share links)
 *   a passkey is removed (methods)                  → its key bundle goes, and the active
 *                                                      subscribers hear contact.keys.changed (keys)
 *   a card changed (profiles)                       → one row in the card-change log per card,
 *                                                      whatever the owner's audience (address
 *                                                      book); every follower's signal feed reads
 *                                                      it as contact.card.changed, and their
 *                                                      streams wake once the change commits
 *                                                      (signals, decision 220)
 *   who receives an owner's card changed            → one row per subscriber whose own view
 *   (subscriptions: approve, move, revoke,            changed, or per profile for all of its
 *   unsubscribe, a profile's move, the owner          subscribers, which address books sync
 *   deleted, restored, locked, unlocked)              from (address book, decision 180); last
 *                                                      in each change
 *
 *   any signal of an account commits (any node)     → this node's copy of their public card is
 *                                                      forgotten (profiles, decision 240)
 *
 * Profiles also ask contacts how many subscribers each profile has (the profile view's count).
 * How a change then reaches its readers (feeds, streams, address books, the public card), and the
 * rules that keep them right: read-side.ts.
 * Called once, after every module is built (app.ts).
 */
export function wireModules(services: ModuleServices): void {
  const { fields, me, profiles, subscriptions, contacts, shareLinks, passkeys, keys, cardChanges, accountChanges, regions } = services;
  fields.onChange(profiles.followChange);
  me.onChange(profiles.followChange);
  profiles.onRemoving(subscriptions.profileRemoving);
  profiles.onRemoving(shareLinks.profileRemoving);
  profiles.countSubscribersWith(subscriptions.countsByProfile);
  passkeys.onRemoving(keys.passkeyRemoving);
  // Across regions (decision 352): what changed for a person elsewhere goes to their region's outbox.
  contacts.followAcrossWith(regions.follow, regions.silentSince);
  subscriptions.onSeenChanged(regions.seenChanged);
  subscriptions.onMembershipChanged(regions.audienceChanged);
  profiles.onCardsChanged(regions.cardsChanged);
  // Last in their transactions: the log's head is held from its append to the commit (decision 180).
  profiles.onCardsChanged(cardChanges.cardsChanged);
  subscriptions.onMembershipChanged(cardChanges.membershipChanged);
  accountChanges.subscribe({ changed: profiles.forgetPublicCard, all: profiles.forgetPublicCards });
}
