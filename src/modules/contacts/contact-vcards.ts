import type { AuthContext } from '../../platform/caller.js';
import { keysetPages } from '../../platform/store/keyset.js';
import type { KeysetPosition } from '../../platform/store/keyset.js';
import type { VcardForm } from '../profiles/schemas.js';
import { movedAt, shownCard } from './contact-card.js';
import type { CardBuilder, ContactCard, ContactRepo } from './contact-card.js';
import type { ContactCardRow } from './queries.js';

/** A card in a subscriber's address book (PRODUCT §9): whose, its vCard 3.0's strong tag and time, and the vCard when read. */
export interface AddressCard {
  ownerId: string;
  etag: string;
  updatedAt: number;
  vcard?: string;
}

/**
 * A subscriber's contacts' cards as vCards (RFC 6350, 2426): one contact's, every shown card in
 * one file, and the address book's (PRODUCT §9), each from the card cardOf answers.
 */
export function createContactVcards(deps: { db: ContactRepo; cards: CardBuilder; cardOf: ContactCard['cardOf'] }) {
  const { db, cards, cardOf } = deps;

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

  return {
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
