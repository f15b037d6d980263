import { noneMatchHolds } from '../../platform/etag.js';
import type { DavAnswer, DavCall } from './dav-call.js';
import { DavError } from './dav-error.js';
import { VCARD_TYPE } from './properties.js';
import type { Resource } from './resources.js';
import type { AddressBookService } from './service.js';

export function createDavGet(deps: { book: AddressBookService }) {
  const { book } = deps;

  /** GET and HEAD: a card as vCard 3.0 with its strong tag (RFC 9110 §8.8.3); 304 when the client holds it. */
  async function get(call: DavCall, resource: Resource): Promise<DavAnswer> {
    if (resource.kind !== 'card') {
      return { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: 'A read-only CardDAV address book: add it to an address-book app with an address-book password.\n' };
    }
    const account = call.principal.accountId;
    if (call.ifNoneMatch) {
      const [tag] = await book.cards(account, [resource.person], false);
      if (!tag) throw new DavError(404, 'no such card in this address book');
      if (noneMatchHolds(call.ifNoneMatch, tag.etag)) return { status: 304, headers: { ETag: tag.etag } };
    }
    const [card] = await book.cards(account, [resource.person], true);
    if (!card) throw new DavError(404, 'no such card in this address book');
    const headers = { 'Content-Type': VCARD_TYPE, ETag: card.etag, 'Last-Modified': new Date(card.updatedAt).toUTCString() };
    return { status: 200, headers, body: card.vcard! };
  }

  return get;
}
