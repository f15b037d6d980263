import type { AddressCard, ContactService } from '../contacts/contacts.js';
import type { CardChangeService } from '../card-changes/service.js';

export type { AddressCard };
export { SYNC_PAGE } from '../card-changes/service.js';

/**
 * The address book (PRODUCT §9): "People I follow", every card the subscriber may see as its
 * `GET /contacts/{id}/card` shows it, as vCard 3.0. What changed and when is the card-change
 * log's (card-changes); which cards and how they read is the contacts service's one audience
 * rule. This service only puts the two together for the CardDAV handler.
 */
export function createAddressBookService(deps: {
  changes: Pick<CardChangeService, 'changesSince' | 'currentToken'>;
  contacts: Pick<ContactService, 'addressCards' | 'addressCardPages'>;
}) {
  const { changes, contacts } = deps;
  return {
    changesSince: changes.changesSince,
    currentToken: changes.currentToken,
    /** The cards of these people the subscriber may see now (the others are not in the book), with their vCards when asked. */
    cards: (subscriberId: string, people: readonly string[], vcards: boolean): Promise<AddressCard[]> => contacts.addressCards(subscriberId, people, vcards),
    /** Every card in the subscriber's book, a page at a time (only one page in memory). */
    pages: (subscriberId: string, vcards: boolean): AsyncIterable<AddressCard[]> => contacts.addressCardPages(subscriberId, vcards),
  };
}

export type AddressBookService = ReturnType<typeof createAddressBookService>;
