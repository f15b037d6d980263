import type { AuthContext } from '../../platform/caller.js';
import type { Clock } from '../../platform/clock.js';
import { refuse } from '../../platform/errors.js';
import { signal } from '../../platform/signals/signal.js';
import type { Tx } from '../../platform/store/store.js';
import { contactNotFound, createContactCard } from './contact-card.js';
import type { CardBuilder, ContactRepo } from './contact-card.js';
import { createContactList } from './contact-list.js';
import { createContactVcards } from './contact-vcards.js';
import { isActive, SEEN_BY_SUBSCRIBER, TRANSITIONS } from './states.js';
import type { SubscriptionStatus } from './states.js';
import { invalidTransition } from './subscriptions.js';
import type { SubscriptionService } from './subscriptions.js';
import type { ContactView, RegionSilence } from './views.js';

export type { ListedContact } from './contact-card.js';

/** A request to follow someone of another region (`alice@eu`): the contact's id, or undefined when the name is this region's. */
export type FollowAcross = (auth: AuthContext, username: string, message: string | null) => Promise<string | undefined>;
export type { AddressCard } from './contact-vcards.js';

/**
 * Contacts, the subscriber's side of a subscription (PRODUCT §4): subscribe, list, read the
 * card the owner chose for you, take cards to an address book, unsubscribe. Put together from
 * the list (contact-list.ts), a contact's card (contact-card.ts) and its vCards
 * (contact-vcards.ts); what the subscriber receives, for the read side, is asked here.
 */
export function createContactService(deps: {
  db: ContactRepo;
  clock: Clock;
  subscriptions: SubscriptionService;
  canonicalOf(username: string): string | undefined;
  /** The card builder (the profiles service): a card's bytes and tags in each variant. */
  cards: CardBuilder;
}) {
  const { db, clock } = deps;
  const card = createContactCard({ db, cards: deps.cards });
  let across: FollowAcross | undefined;
  let silence: RegionSilence | undefined;
  const list = createContactList({ db, withCard: card.withCard, silence: (region) => silence?.(region) });
  const vcards = createContactVcards({ db, cards: deps.cards, cardOf: card.cardOf });

  return {
    view: list.view,
    list: list.list,
    shownOwner: card.shownOwner,
    card: card.card,
    addressCards: vcards.addressCards,
    addressCardPages: vcards.addressCardPages,
    cardFrom: vcards.cardFrom,
    vcard: vcards.vcard,
    allVcards: vcards.allVcards,

    /** The subscriber's contact id for a row's owner and profile when it receives that card now, else null (column references). */
    receivedContact: (subscriberId: string) => (ownerColumn: string, profileColumn: string) => db.direct.subs.receivedContact(subscriberId, ownerColumn, profileColumn),
    /** The cards the subscriber receives now with their contact ids, as a subquery. */
    receivedCards: (subscriberId: string) => db.direct.subs.receivedCards(subscriberId),
    /** The owners whose card changes may concern the subscriber (its live subscriptions'): a stream hub's index. */
    followedOwners: (subscriberId: string) => db.direct.subs.liveOwnersFor(subscriberId),
    /** Everyone who receives one of the owner's cards now, with their contact ids, as fan-out targets in `tx` (the keys module's audience). */
    activeSubscribersOf: (tx: Tx, ownerId: string) => db.in(tx).subs.activeSubscribersOf(ownerId),

    /**
     * Who follows people of other regions (the regions module, wired in wiring.ts): given
     * `alice@eu`, the contact's id once its owner's region took the request; undefined for a
     * name of this region.
     */
    followAcrossWith(follow: FollowAcross, silentRegion: RegionSilence): void {
      across = follow;
      silence = silentRegion;
    },

    /** POST /contacts: a request to see someone's card, pending until they approve it. */
    async subscribe(auth: AuthContext, username: string, message: string | null | undefined): Promise<ContactView> {
      const elsewhere = await across?.(auth, username, message ?? null);
      if (elsewhere !== undefined) return list.view(auth, elsewhere);
      const canonical = deps.canonicalOf(username);
      const owner = canonical ? await db.direct.accounts.findByCanonical(canonical) : undefined;
      // A deleted account (restorable or purged) is nobody to subscribe to (PRODUCT §4), nor is a locked one.
      if (!owner || owner.deleted_at !== null || owner.locked_at !== null) throw refuse('account_not_found', 'nobody has this username');
      const id = await db.transaction((_, tx) => deps.subscriptions.subscribe(tx, auth, { ownerId: owner.id, message }));
      return list.view(auth, id);
    },

    /**
     * DELETE /contacts/{id}: unsubscribes (pending or active → ended, and a denied or silenced
     * request too, which reads pending to its maker); an ended or revoked contact leaves the list.
     * Either way the private annotation goes with it (PRODUCT §5).
     */
    async remove(auth: AuthContext, id: string): Promise<void> {
      const subscriberId = auth.account.id;
      await db.transaction(async (q, tx) => {
        const row = await q.subs.find('subscriber', subscriberId, id);
        if (!row || row.hidden_at !== null) throw contactNotFound();
        const rule = TRANSITIONS.unsubscribe;
        if ((rule.from as readonly string[]).includes(row.status)) {
          const ended = await q.subs.transition('subscriber', subscriberId, id, rule.from, { status: rule.to, hidden_at: clock.now() }, clock.now());
          if (!ended) throw invalidTransition(SEEN_BY_SUBSCRIBER[(await q.subs.find('subscriber', subscriberId, id))!.status as SubscriptionStatus], 'unsubscribe');
          // The owner never saw a silenced request: nothing of theirs changed.
          if (row.status !== 'silenced') await signal(tx, ended.owner_id, 'subscriptions.changed');
          await deps.subscriptions.seenChanged(tx, { ownerId: row.owner_id, subscriberId });
        } else {
          await q.subs.hide(subscriberId, id, clock.now());
        }
        await signal(tx, subscriberId, 'contacts.changed');
        if (await q.annotations.remove(subscriberId, id)) await signal(tx, subscriberId, 'annotations.changed', { id });
        // Last: the owner's card leaves the subscriber's address book.
        if (isActive(row.status)) await deps.subscriptions.membershipChanged(tx, { ownerId: row.owner_id, subscriberId });
      });
    },
  };
}

export type ContactService = ReturnType<typeof createContactService>;
