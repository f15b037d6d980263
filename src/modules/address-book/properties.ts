import type { AddressCard } from './service.js';
import { pathOf } from './resources.js';
import type { Resource } from './resources.js';
import { CALENDARSERVER, CARDDAV, DAV, clark, escapeXml, href } from './xml.js';

/**
 * The live properties of each resource of the address book (CARDDAV.md "Methods and XML"),
 * as XML content by Clark name. What a client asks for that is not here goes back in a 404
 * propstat (RFC 4918 §9.1): iOS's CS:me-card and push properties, quota, and the like.
 */

export const PROP = {
  resourcetype: clark(DAV, 'resourcetype'),
  displayname: clark(DAV, 'displayname'),
  currentUserPrincipal: clark(DAV, 'current-user-principal'),
  principalUrl: clark(DAV, 'principal-URL'),
  principalCollectionSet: clark(DAV, 'principal-collection-set'),
  owner: clark(DAV, 'owner'),
  privileges: clark(DAV, 'current-user-privilege-set'),
  reports: clark(DAV, 'supported-report-set'),
  syncToken: clark(DAV, 'sync-token'),
  getetag: clark(DAV, 'getetag'),
  getcontenttype: clark(DAV, 'getcontenttype'),
  getcontentlength: clark(DAV, 'getcontentlength'),
  getlastmodified: clark(DAV, 'getlastmodified'),
  homeSet: clark(CARDDAV, 'addressbook-home-set'),
  description: clark(CARDDAV, 'addressbook-description'),
  addressData: clark(CARDDAV, 'supported-address-data'),
  maxResourceSize: clark(CARDDAV, 'max-resource-size'),
  ctag: clark(CALENDARSERVER, 'getctag'),
} as const;

export const BOOK_DISPLAY_NAME = 'People I follow';
const BOOK_DESCRIPTION = 'The people you follow on VID, each card as they show it to you; kept current, read-only';
export const VCARD_TYPE = 'text/vcard; charset=utf-8';
/** The largest card the book holds, in octets (RFC 6352 §6.2.3): cards are small text, photos aside. */
const MAX_CARD_OCTETS = 102_400;

/**
 * RFC 3744 §5.4: the caller may read, nothing more. DAVx5 takes a collection without this
 * property for writable; Evolution and Thunderbird show a read-only book from it.
 */
const READ_ONLY = '<D:privilege><D:read/></D:privilege><D:privilege><D:read-current-user-privilege-set/></D:privilege>';
/** RFC 3253 §3.1.5: the reports the book answers (a client finds sync-collection here). */
const BOOK_REPORTS = ['<C:addressbook-multiget/>', '<C:addressbook-query/>', '<D:sync-collection/>'].map((report) => `<D:supported-report><D:report>${report}</D:report></D:supported-report>`).join('');

/** What a property's value needs beyond the resource: who asks, and the book's sync token. */
export interface PropertyContext {
  accountId: string;
  username: string;
  /** The book's sync token (a URI); read only when a property asks for it. */
  token(): Promise<string>;
}

export type PropertyValue = string | (() => Promise<string>);

const httpDate = (time: number) => new Date(time).toUTCString();

/** The properties of a collection of the address book (every resource but a card). */
export function collectionProperties(resource: Resource, ctx: PropertyContext): Record<string, PropertyValue> {
  const path = (kind: Resource['kind']) => pathOf({ kind } as Resource, ctx.accountId);
  const common: Record<string, PropertyValue> = {
    [PROP.currentUserPrincipal]: href(path('principal')),
    [PROP.privileges]: READ_ONLY,
  };
  switch (resource.kind) {
    case 'root':
      return {
        ...common,
        [PROP.resourcetype]: '<D:collection/>',
        [PROP.displayname]: 'VID',
        [PROP.principalCollectionSet]: href(path('principals')),
        [PROP.homeSet]: href(path('home')),
        [PROP.reports]: '',
      };
    case 'principals':
    case 'homes':
      return { ...common, [PROP.resourcetype]: '<D:collection/>', [PROP.displayname]: resource.kind === 'principals' ? 'Principals' : 'Address books' };
    case 'principal':
      return {
        ...common,
        [PROP.resourcetype]: '<D:principal/>',
        [PROP.displayname]: escapeXml(ctx.username),
        [PROP.principalUrl]: href(path('principal')),
        [PROP.principalCollectionSet]: href(path('principals')),
        [PROP.homeSet]: href(path('home')),
        [PROP.reports]: '',
      };
    case 'home':
      // No display name: the npm `dav` client takes every member of the home with a
      // DAV:displayname for an address book (listAddressBooks), so the home itself would show as
      // a second, empty one; sabre/dav's homes have none either.
      return { ...common, [PROP.resourcetype]: '<D:collection/>', [PROP.owner]: href(path('principal')), [PROP.reports]: '' };
    case 'book':
      return {
        ...common,
        [PROP.resourcetype]: '<D:collection/><C:addressbook/>',
        [PROP.displayname]: escapeXml(BOOK_DISPLAY_NAME),
        [PROP.description]: escapeXml(BOOK_DESCRIPTION),
        [PROP.owner]: href(path('principal')),
        [PROP.syncToken]: async () => escapeXml(await ctx.token()),
        [PROP.ctag]: async () => escapeXml(await ctx.token()),
        // vCard 3.0 only: DAVx5 would switch to 4.0 were it offered, and macOS drops 4.0 cards.
        [PROP.addressData]: '<C:address-data-type content-type="text/vcard" version="3.0"/>',
        [PROP.maxResourceSize]: String(MAX_CARD_OCTETS),
        [PROP.reports]: BOOK_REPORTS,
      };
    case 'card':
      throw new Error('a card has cardProperties');
  }
}

/**
 * The properties of a card, from its tag and time alone (listing a book renders no card), and
 * its DAV:getcontentlength (RFC 4918 §15.4: the octets GET serves) when its vCard was read:
 * `needsVcard` says when a request asks for it. cadaver fails on a member without it.
 */
export function cardProperties(card: AddressCard): Record<string, PropertyValue> {
  return {
    [PROP.resourcetype]: '',
    [PROP.getetag]: escapeXml(card.etag),
    [PROP.getcontenttype]: VCARD_TYPE,
    ...(card.vcard !== undefined ? { [PROP.getcontentlength]: String(Buffer.byteLength(card.vcard, 'utf8')) } : {}),
    [PROP.getlastmodified]: httpDate(card.updatedAt),
  };
}
