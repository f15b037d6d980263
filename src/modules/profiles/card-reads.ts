import type { AuthContext } from '../../platform/caller.js';
import { noneMatchHolds } from '../../platform/etag.js';
import type { Conditional } from '../../platform/etag.js';
import { cardAsOf, cardChanges, cardEtag, contentOf } from './card.js';
import { cardToVcard, uidFor, vcardPhotoIdOf } from './vcard.js';
import type { VcardVersion } from './vcard.js';
import { notFound } from './views.js';
import type { ProfileRepository } from './views.js';

/** A vCard's photos by id (the photos service). */
export type VcardPhotos = (ids: readonly string[]) => Promise<ReadonlyMap<string, Buffer>>;

/** The rendered card as others receive it: its variants, its vCards, and the owner's preview of it. */
export function createCardReads(deps: { db: ProfileRepository; vcardPhotos: VcardPhotos }) {
  const { db } = deps;
  return {
    /**
     * The card builder's variants (card.ts), for a module that serves a profile's rendered card
     * otherwise than as stored (contacts: a card seen since a move, its vCards): the bytes and
     * the tags are made there, never spliced by the caller.
     */
    cardAsOf,
    cardEtag,
    /** What changed for someone who saw the card `before` (stored JSON) and now sees `after`: kinds of detail (card.ts). */
    changesBetween: (before: string, after: string): string[] => cardChanges(contentOf(before), contentOf(after)),
    /**
     * A rendered card (its stored JSON, parsed) as a vCard whose UID is the owner's permanent id;
     * with `rfc9554` (4.0 only) RFC 9554's properties instead of their X- forms (vcard.ts).
     */
    vcardOf: (card: Parameters<typeof cardToVcard>[0], ownerId: string, version: VcardVersion, options: { rfc9554?: boolean; photos?: ReadonlyMap<string, Buffer> } = {}): string =>
      cardToVcard(card, { version, uid: uidFor(ownerId), rfc9554: options.rfc9554, photos: options.photos }),
    /** The photos some cards' vCards carry, read at once (a page of an address book is one read). */
    vcardPhotosOf: (cards: ReadonlyArray<Parameters<typeof cardToVcard>[0]>): Promise<ReadonlyMap<string, Buffer>> => deps.vcardPhotos(cards.flatMap((card) => vcardPhotoIdOf(card) ?? [])),

    /**
     * The card exactly as the profile's audience receives it (rendered JSON and its ETag). A
     * conditional read whose tag still holds reads only the tag: no JSON when 304 will answer.
     */
    async preview(auth: AuthContext, profileId: string, ifNoneMatch?: string): Promise<Conditional> {
      if (ifNoneMatch) {
        const tag = await db.direct.profiles.cardTag(auth.account.id, profileId);
        if (!tag) throw notFound();
        if (noneMatchHolds(ifNoneMatch, tag.card_etag)) return { etag: tag.card_etag };
      }
      const card = await db.direct.profiles.card(auth.account.id, profileId);
      if (!card) throw notFound();
      return { json: card.card_json, etag: card.card_etag };
    },
  };
}
