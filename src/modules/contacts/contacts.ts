import type { AuthContext } from '../../platform/caller.js';
import type { Clock } from '../../platform/clock.js';
import { noneMatchHolds } from '../../platform/etag.js';
import type { Conditional } from '../../platform/etag.js';
import { AppError, refuse } from '../../platform/errors.js';
import { signal } from '../../platform/signals/signal.js';
import type { accountQueries } from '../../platform/store/accounts.js';
import { keysetPages, listPosition, page, pageOfList } from '../../platform/store/keyset.js';
import type { KeysetPosition, Page } from '../../platform/store/keyset.js';
import type { RepositoryOf } from '../../platform/store/store.js';
import type { ProfileService } from '../profiles/service.js';
import type { VcardForm } from '../profiles/schemas.js';
import { labelKey } from './queries.js';
import type { annotationQueries, blockQueries, ContactAccessRow, ContactCardRow, subscriptionQueries } from './queries.js';
import { SEEN_BY_SUBSCRIBER, storedAs, TRANSITIONS } from './states.js';
import type { SubscriptionStatus } from './states.js';
import { invalidTransition } from './subscriptions.js';
import type { SubscriptionService } from './subscriptions.js';
import { matches, queryWords, searchTextOf, sortKeyOf } from './contact-search.js';
import type { ContactSort, Findable } from './contact-search.js';
import { contactView, cardChangedAt } from './views.js';
import type { ContactView } from './views.js';

type Repo = RepositoryOf<{ subs: typeof subscriptionQueries; blocks: typeof blockQueries; annotations: typeof annotationQueries; accounts: typeof accountQueries }>;

const notFound = () => refuse('contact_not_found', 'you have no contact with this id');

/**
 * The audience rule's answer (contactAccessRule, queries.ts) as the subscriber hears it: the
 * contact, when what it shows (its card and vCards, or its keys) is theirs to see; else the one
 * refusal that says why not. Hidden or not theirs: 404, as if there were no such contact.
 */
function refuseUnlessShown<Row extends ContactAccessRow>(row: Row | undefined, what: 'card' | 'keys'): Row {
  if (!row || row.access === 'hidden') throw notFound();
  const its = what === 'card' ? 'its card is' : 'its keys are';
  // PRODUCT §4: while the owner's account is deleted the card is gone, and may come back.
  if (row.access === 'owner_deleted') throw refuse('contact_account_deleted', `this contact's account is deleted; ${its} back if they restore it`);
  // Decision 090: a locked owner's card is unavailable; why is between them and the operator.
  if (row.access === 'owner_locked') throw refuse('contact_account_unavailable', `this contact's account is not available right now; ${its} back when it is`);
  if (row.access !== 'shown') throw refuse('contact_not_active', `this contact shows you no ${what}: it is not active`);
  return row;
}

/** A contact whose card the subscriber may see, with that card's columns (an active contact always has a profile). */
function shownCard<Row extends Omit<ContactCardRow, 'card_json'>>(row: Row | undefined): Row & { card_etag: string; card_updated_at: number } {
  const shown = refuseUnlessShown(row, 'card');
  if (shown.card_etag === null || shown.card_updated_at === null) throw refuse('contact_not_active', 'this contact shows you no card: it is not active');
  return shown as Row & { card_etag: string; card_updated_at: number };
}

/**
 * When the subscriber began seeing the profile, if not before its card last changed (a move, an
 * approval). At the same millisecond they count as having begun after it: their card is their
 * first (or the one they were moved to), not a change of one they saw.
 */
function movedAt(row: { card_since: number | null; card_updated_at: number }): number | undefined {
  const since = row.card_since ?? 0;
  return since >= row.card_updated_at ? since : undefined;
}

/**
 * A contact as GET /contacts lists it; with include=card, the card it shows as stored (`stored`,
 * the JSON its own route sends; null: none), which the route sends as `card`, and that card's tag.
 */
export type ListedContact = ContactView & { card_etag?: string | null; stored?: string | null };

/** A listed row (the subscriber's side: the rule's `access` selected) with the card columns include=card selects. */
type ListedCardRow = Omit<ContactCardRow, 'card_updated_at'> & { profile_card_updated_at: number | null };
type CardRowOf<Row> = Row & ListedCardRow;

/** A card in a subscriber's address book (PRODUCT §9): whose, its vCard 3.0's strong tag and time, and the vCard when read. */
export interface AddressCard {
  ownerId: string;
  etag: string;
  updatedAt: number;
  vcard?: string;
}

/**
 * Contacts, the subscriber's side of a subscription (PRODUCT §4): subscribe, list, read the
 * card the owner chose for you, take cards to an address book, unsubscribe.
 */
export function createContactService(deps: {
  db: Repo;
  clock: Clock;
  subscriptions: SubscriptionService;
  canonicalOf(username: string): string | undefined;
  /** The card builder (the profiles service): a card's bytes and tags in each variant. */
  cards: Pick<ProfileService, 'cardAsOf' | 'cardEtag' | 'vcardOf' | 'vcardPhotosOf'>;
}) {
  const { db, clock, cards } = deps;

  /** A search's and a sort's cursor: the last contact's (sort key, id). */
  const FOUND_POSITION = listPosition(['string', 'string']);

  /**
   * GET /contacts?q=&sort=: the subscriber's contacts (as the list narrows them) whose names,
   * username, labels or shown card hold every word of `q`, folded (decision 270), in `sort`'s
   * order, paged by position like any list.
   */
  async function find(auth: AuthContext, filter: { statuses: readonly string[]; label?: string; q: string; sort: ContactSort }, cursor: string | undefined, limit: number, withCards: boolean): Promise<Page<ListedContact>> {
    const [rows, labels] = await Promise.all([
      filter.statuses.length ? db.direct.subs.findable(auth.account.id, { statuses: filter.statuses, label: filter.label }) : [],
      db.direct.annotations.allLabelsOf(auth.account.id),
    ]);
    const words = queryWords(filter.q);
    const found: Array<{ view: ContactView; key: string; row: (typeof rows)[number] }> = [];
    for (const row of rows) {
      const view = contactView(row, labels.get(row.id) ?? []);
      const shown = row.access === 'shown' && row.card_json !== null;
      const contact: Findable = {
        id: row.id,
        owner: view.owner,
        labels: view.labels,
        fields: shown ? (JSON.parse(row.card_json!) as { fields: Findable['fields'] }).fields : [],
        changedAt: shown ? cardChangedAt(row) : null,
      };
      if (words.length && !matches(searchTextOf(contact), words)) continue;
      found.push({ view, row, key: filter.sort === 'created' ? `${String(row.created_at).padStart(16, '0')}` : sortKeyOf(contact, filter.sort) });
    }
    found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.view.id < b.view.id ? -1 : a.view.id > b.view.id ? 1 : 0));
    const listed = pageOfList(found, cursor, limit, (item) => [item.key, item.view.id], FOUND_POSITION);
    return { ...listed, data: listed.data.map((item) => (withCards ? withCard(item.view, item.row as CardRowOf<typeof item.row>) : item.view)) };
  }

  /** The tag of a contact's card (or of one of its vCards) as the subscriber receives it. */
  const etagOf = (row: { card_since: number | null; card_etag: string; card_updated_at: number }, vcard?: VcardForm) =>
    cards.cardEtag(row.card_etag, { since: movedAt(row), vcard: vcard?.version, rfc9554: vcard?.rfc9554 });

  /**
   * A contact's card: its profile's rendered card, sent as stored, unless the subscriber began
   * seeing that profile after the card last changed (a move): then for them it changed at the
   * move, and updated_at and the tag say so. Or the refusal that says why there is none.
   */
  function cardOf(row: ContactCardRow | undefined, vcard?: VcardForm): { json: string; etag: string } {
    const shown = shownCard(row);
    if (shown.card_json === null) throw refuse('contact_not_active', 'this contact shows you no card: it is not active');
    const since = movedAt(shown);
    // Seen since a move or an approval: what changed for them then, as the subscription keeps it.
    const changed = shown.card_changes === null ? undefined : (JSON.parse(shown.card_changes) as string[]);
    return { json: since === undefined ? shown.card_json : cards.cardAsOf(shown.card_json, since, changed), etag: etagOf(shown, vcard) };
  }

  /**
   * A listed contact with the card GET /contacts/{id}/card answers for it (include=card): cardOf
   * itself, so the audience rule and the bytes are the single answer's; where that answer is a
   * refusal (not active, the owner deleted or locked), no card. Its tag travels with it, so a
   * client holding it reads the card again with If-None-Match (RFC 9110 §13.1.2), not afresh.
   */
  function withCard(view: ContactView, row: ListedCardRow): ListedContact {
    try {
      const card = cardOf({ ...row, card_updated_at: row.profile_card_updated_at });
      return { ...view, card_etag: card.etag, stored: card.json };
    } catch (error) {
      if (error instanceof AppError) return { ...view, card_etag: null, stored: null };
      throw error;
    }
  }

  /**
   * Shown contacts as an address book holds them: the vCard 3.0 the vcard route sends for
   * version=3.0 (with the photos of the page read at once), and its tag.
   */
  async function addressCardsOf(rows: ReadonlyArray<Omit<ContactCardRow, 'card_json'> & { card_json?: string | null }>, vcard: boolean): Promise<AddressCard[]> {
    const shown = rows.map((row) => shownCard(row));
    const parsed = vcard ? shown.map((row) => JSON.parse(cardOf({ ...row, card_json: row.card_json ?? null }).json)) : [];
    const photos = vcard ? await cards.vcardPhotosOf(parsed) : undefined;
    return shown.map((row, i) => {
      const since = movedAt(row);
      const card: AddressCard = { ownerId: row.owner_id, etag: cards.cardEtag(row.card_etag, { since, vcard: '3.0' }), updatedAt: since ?? row.card_updated_at };
      if (vcard) card.vcard = cards.vcardOf(parsed[i], row.owner_id, '3.0', { photos });
      return card;
    });
  }

  /** A contact as its subscriber sees it; `current`: a keyed request answers with what it just wrote, not yet committed. */
  async function view(auth: AuthContext, id: string): Promise<ContactView> {
    const row = await db.current.subs.find('subscriber', auth.account.id, id);
    if (!row || row.hidden_at !== null) throw notFound();
    const labels = (await db.current.annotations.labelsOf(auth.account.id, [id])).get(id) ?? [];
    return contactView(row, labels);
  }

  return {
    view,

    /**
     * Whose contact this is, when what it shows is the subscriber's to see (the audience rule);
     * else the refusal, worded for `what` (the keys module asks it for /contacts/{id}/keys).
     */
    async shownOwner(subscriberId: string, contactId: string, what: 'card' | 'keys'): Promise<string> {
      return refuseUnlessShown(await db.direct.subs.contactAccess(subscriberId, contactId), what).owner_id;
    },

    /**
     * The address book's cards (PRODUCT §9): those of these owners the audience rule shows the
     * subscriber (the others are not in the book), each with its vCard 3.0's tag, made from the
     * stored card's without rendering it, and with the vCard itself when asked.
     */
    async addressCards(subscriberId: string, ownerIds: readonly string[], vcards: boolean): Promise<AddressCard[]> {
      const rows = await db.direct.subs.shownCardsPage(subscriberId, { owners: ownerIds, limit: ownerIds.length, json: vcards });
      return addressCardsOf(rows, vcards);
    },

    /** Every card of the subscriber's address book, a page at a time in contact order. */
    async *addressCardPages(subscriberId: string, vcards: boolean, size = 500): AsyncIterable<AddressCard[]> {
      const read = (after: KeysetPosition | undefined, limit: number) => db.direct.subs.shownCardsPage(subscriberId, { after, limit, json: vcards });
      for await (const rows of keysetPages(read, (row) => row, size)) yield await addressCardsOf(rows, vcards);
    },

    /** The card the subscriber sees of this owner now, as served (stored JSON), if the audience rule shows it one. */
    async cardFrom(subscriberId: string, ownerId: string): Promise<string | undefined> {
      const [row] = await db.direct.subs.shownCardsPage(subscriberId, { owners: [ownerId], limit: 1, json: true });
      return row ? cardOf({ ...row, card_json: row.card_json ?? null }).json : undefined;
    },

    /** The profiles the subscriber receives now, as a subquery: the address book reads the changes of these cards. */
    receivedProfiles: (subscriberId: string) => db.direct.subs.receivedProfiles(subscriberId),
    /** The same as a condition on a row naming an owner and a profile (column references), for a read that starts from the rows. */
    receives: (subscriberId: string) => (ownerColumn: string, profileColumn: string) => db.direct.subs.receives(subscriberId, ownerColumn, profileColumn),

    /** The subscriber's contact id for a row's owner and profile when it receives that card now, else null (column references). */
    receivedContact: (subscriberId: string) => (ownerColumn: string, profileColumn: string) => db.direct.subs.receivedContact(subscriberId, ownerColumn, profileColumn),
    /** The cards the subscriber receives now with their contact ids, as a subquery. */
    receivedCards: (subscriberId: string) => db.direct.subs.receivedCards(subscriberId),
    /** The owners whose card changes may concern the subscriber (its live subscriptions'): a stream hub's index. */
    followedOwners: (subscriberId: string) => db.direct.subs.liveOwnersFor(subscriberId),

    /** POST /contacts: a request to see someone's card, pending until they approve it. */
    async subscribe(auth: AuthContext, username: string, message: string | null | undefined): Promise<ContactView> {
      const canonical = deps.canonicalOf(username);
      const owner = canonical ? await db.direct.accounts.findByCanonical(canonical) : undefined;
      // A deleted account (restorable or purged) is nobody to subscribe to (PRODUCT §4), nor is a locked one.
      if (!owner || owner.deleted_at !== null || owner.locked_at !== null) throw refuse('account_not_found', 'nobody has this username');
      const id = await db.transaction((_, tx) => deps.subscriptions.subscribe(tx, auth, { ownerId: owner.id, message }));
      return view(auth, id);
    },

    /** GET /contacts: a page of the subscriber's contacts; `withCards` (include=card): each with the card it shows them. */
    async list(auth: AuthContext, filter: { status?: SubscriptionStatus; label?: string; q?: string; sort?: ContactSort }, cursor: string | undefined, limit: number, withCards = false): Promise<Page<ListedContact>> {
      const label = filter.label === undefined ? undefined : labelKey(filter.label);
      // By the status the subscriber reads: pending holds denied and silenced requests, denied nothing (PRODUCT §4).
      const statuses = filter.status ? storedAs(filter.status) : (Object.keys(SEEN_BY_SUBSCRIBER) as SubscriptionStatus[]);
      if (filter.q !== undefined || (filter.sort ?? 'created') !== 'created') return find(auth, { statuses, label, q: filter.q ?? '', sort: filter.sort ?? 'created' }, cursor, limit, withCards);
      // A status no contact reads (denied) lists nothing; the cursor is still checked (an empty IN list is not SQL).
      const listed = await page(async (after, size) => (statuses.length ? db.direct.subs.list('subscriber', auth.account.id, { statuses, label }, after, size, withCards) : []), cursor, limit, (row) => row);
      const labels = await db.direct.annotations.labelsOf(auth.account.id, listed.data.map((row) => row.id));
      return { ...listed, data: listed.data.map((row) => {
        const view = contactView(row, labels.get(row.id) ?? []);
        return withCards ? withCard(view, row as CardRowOf<typeof row>) : view;
      }) };
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
        if (!row || row.hidden_at !== null) throw notFound();
        const rule = TRANSITIONS.unsubscribe;
        if ((rule.from as readonly string[]).includes(row.status)) {
          const ended = await q.subs.transition('subscriber', subscriberId, id, rule.from, { status: rule.to, hidden_at: clock.now() }, clock.now());
          if (!ended) throw invalidTransition(SEEN_BY_SUBSCRIBER[(await q.subs.find('subscriber', subscriberId, id))!.status as SubscriptionStatus], 'unsubscribe');
          // The owner never saw a silenced request: nothing of theirs changed.
          if (row.status !== 'silenced') await signal(tx, ended.owner_id, 'subscriptions.changed');
        } else {
          await q.subs.hide(subscriberId, id, clock.now());
        }
        await signal(tx, subscriberId, 'contacts.changed');
        if (await q.annotations.remove(subscriberId, id)) await signal(tx, subscriberId, 'annotations.changed', { id });
        // Last: the owner's card leaves the subscriber's address book.
        if (row.status === 'active') await deps.subscriptions.membershipChanged(tx, { ownerId: row.owner_id, subscriberId });
      });
    },

    /**
     * GET /contacts/{id}/card: the card of the profile the owner shows you; active contacts only.
     * A conditional read whose tag still holds reads no card (304).
     */
    async card(auth: AuthContext, id: string, ifNoneMatch?: string): Promise<Conditional> {
      if (ifNoneMatch) {
        const etag = etagOf(shownCard(await db.direct.subs.cardTag(auth.account.id, id)));
        if (noneMatchHolds(ifNoneMatch, etag)) return { etag };
      }
      return cardOf(await db.direct.subs.card(auth.account.id, id));
    },

    async vcard(auth: AuthContext, id: string, form: VcardForm): Promise<{ text: string; etag: string; username: string }> {
      const row = await db.direct.subs.card(auth.account.id, id);
      const card = cardOf(row, form);
      const parsed = JSON.parse(card.json);
      const photos = await cards.vcardPhotosOf([parsed]);
      return { text: cards.vcardOf(parsed, row!.owner_id, form.version, { rfc9554: form.rfc9554, photos }), etag: card.etag, username: parsed.owner.username };
    },

    /** Every card the subscriber may see, in one file, each its own BEGIN…END with a stable UID (an import updates). */
    async allVcards(auth: AuthContext, form: VcardForm): Promise<string> {
      const rows = await db.direct.subs.shownCards(auth.account.id);
      const parts: string[] = [];
      // The photos a few hundred cards at a time: never every contact's photo in memory at once.
      for (let start = 0; start < rows.length; start += 200) {
        const chunk = rows.slice(start, start + 200).map((row) => ({ row, card: JSON.parse(cardOf(row).json) }));
        const photos = await cards.vcardPhotosOf(chunk.map(({ card }) => card));
        for (const { row, card } of chunk) parts.push(cards.vcardOf(card, row.owner_id, form.version, { rfc9554: form.rfc9554, photos }));
      }
      return parts.join('');
    },
  };
}

export type ContactService = ReturnType<typeof createContactService>;
