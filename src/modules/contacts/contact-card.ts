import type { AuthContext } from '../../platform/caller.js';
import { noneMatchHolds } from '../../platform/etag.js';
import type { Conditional } from '../../platform/etag.js';
import { AppError, refuse } from '../../platform/errors.js';
import type { accountQueries } from '../../platform/store/accounts.js';
import type { RepositoryOf } from '../../platform/store/store.js';
import type { ProfileService } from '../profiles/service.js';
import type { VcardForm } from '../profiles/schemas.js';
import type { annotationQueries, blockQueries, ContactAccessRow, ContactCardRow, subscriptionQueries } from './queries.js';
import type { ContactView } from './views.js';

export type ContactRepo = RepositoryOf<{ subs: typeof subscriptionQueries; blocks: typeof blockQueries; annotations: typeof annotationQueries; accounts: typeof accountQueries }>;

/** The card builder (the profiles service): a card's bytes and tags in each variant. */
export type CardBuilder = Pick<ProfileService, 'cardAsOf' | 'cardEtag' | 'vcardOf' | 'vcardPhotosOf'>;

export const contactNotFound = () => refuse('contact_not_found', 'you have no contact with this id');

/**
 * The audience rule's answer (contactAccessRule, queries.ts) as the subscriber hears it: the
 * contact, when what it shows (its card and vCards, or its keys) is theirs to see; else the one
 * refusal that says why not. Hidden or not theirs: 404, as if there were no such contact.
 */
function refuseUnlessShown<Row extends ContactAccessRow>(row: Row | undefined, what: 'card' | 'keys'): Row {
  if (!row || row.access === 'hidden') throw contactNotFound();
  const its = what === 'card' ? 'its card is' : 'its keys are';
  // PRODUCT §4: while the owner's account is deleted the card is gone, and may come back.
  if (row.access === 'owner_deleted') throw refuse('contact_account_deleted', `this contact's account is deleted; ${its} back if they restore it`);
  // Decision 090: a locked owner's card is unavailable; why is between them and the operator.
  if (row.access === 'owner_locked') throw refuse('contact_account_unavailable', `this contact's account is not available right now; ${its} back when it is`);
  if (row.access !== 'shown') throw refuse('contact_not_active', `this contact shows you no ${what}: it is not active`);
  return row;
}

/** A contact whose card the subscriber may see, with that card's columns (an active contact always has a profile). */
export function shownCard<Row extends Omit<ContactCardRow, 'card_json'>>(row: Row | undefined): Row & { card_etag: string; card_updated_at: number } {
  const shown = refuseUnlessShown(row, 'card');
  if (shown.card_etag === null || shown.card_updated_at === null) throw refuse('contact_not_active', 'this contact shows you no card: it is not active');
  return shown as Row & { card_etag: string; card_updated_at: number };
}

/**
 * When the subscriber began seeing the profile, if not before its card last changed (a move, an
 * approval). At the same millisecond they count as having begun after it: their card is their
 * first (or the one they were moved to), not a change of one they saw.
 */
export function movedAt(row: { card_since: number | null; card_updated_at: number }): number | undefined {
  const since = row.card_since ?? 0;
  return since >= row.card_updated_at ? since : undefined;
}

/**
 * A contact as GET /contacts lists it; with include=card, the card it shows as stored (`stored`,
 * the JSON its own route sends; null: none), which the route sends as `card`, and that card's tag.
 */
export type ListedContact = ContactView & { card_etag?: string | null; stored?: string | null };

/** A listed row (the subscriber's side: the rule's `access` selected) with the card columns include=card selects. */
export type ListedCardRow = Omit<ContactCardRow, 'card_updated_at'> & { profile_card_updated_at: number | null };
export type CardRowOf<Row> = Row & ListedCardRow;

/**
 * A contact's card as its subscriber receives it (PRODUCT §4): the audience rule's answer turned
 * into the card or the refusal, the card's bytes and tag as of when they began seeing it.
 */
export function createContactCard(deps: { db: ContactRepo; cards: CardBuilder }) {
  const { db, cards } = deps;

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

  return {
    cardOf,
    withCard,

    /**
     * Whose contact this is, when what it shows is the subscriber's to see (the audience rule);
     * else the refusal, worded for `what` (the keys module asks it for /contacts/{id}/keys).
     */
    async shownOwner(subscriberId: string, contactId: string, what: 'card' | 'keys'): Promise<string> {
      return refuseUnlessShown(await db.direct.subs.contactAccess(subscriberId, contactId), what).owner_id;
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
  };
}

export type ContactCard = ReturnType<typeof createContactCard>;
