import type { DavPrincipal } from '../dav-tokens/service.js';
import { ADDRESS_DATA } from './dav-requests.js';
import type { PropRequest } from './dav-requests.js';
import { MULTISTATUS_TYPE, answer, propResponse } from './multistatus.js';
import { PROP, cardProperties } from './properties.js';
import type { PropertyValue } from './properties.js';
import { pathOf } from './resources.js';
import type { AddressCard } from './service.js';
import { vcardSubset } from './vcard-parts.js';
import { escapeVcardXml } from './xml.js';

/** What every DAV method's answer is built from: the call, the answer, and a card's response in a multistatus. */

export interface DavCall {
  method: string;
  /** The request's path, as sent (percent-encoded), without its query. */
  path: string;
  depth?: string;
  ifNoneMatch?: string;
  body?: Buffer;
  principal: DavPrincipal;
}

export interface DavAnswer {
  status: number;
  headers: Record<string, string>;
  /** Text, or chunks written as they come (a large listing is never whole in memory). */
  body?: string | AsyncIterable<string>;
}

export const multistatus = (body: string | AsyncIterable<string>): DavAnswer => ({ status: 207, headers: { 'Content-Type': MULTISTATUS_TYPE }, body });

/**
 * Whether answering needs the cards' vCards: for C:address-data (REPORTs only), and for
 * DAV:getcontentlength, which every card has (RFC 4918 §15.4) and allprop and propname name.
 */
export const wantsVcards = (props: PropRequest) => props.kind !== 'names' || props.names.includes(ADDRESS_DATA) || props.names.includes(PROP.getcontentlength);

/** A card's properties in a REPORT: its live ones, and its vCard (or the parts asked for). */
function reportProperties(card: AddressCard, props: PropRequest): Record<string, PropertyValue> {
  const available = cardProperties(card);
  if (card.vcard !== undefined && props.kind === 'names') {
    const properties = props.addressData?.properties;
    available[ADDRESS_DATA] = escapeVcardXml(properties ? vcardSubset(card.vcard, properties) : card.vcard);
  }
  return available;
}

/** A card's DAV:response in a REPORT, under `path` (the href the client wrote) or the card's own. */
export async function cardResponse(principal: DavPrincipal, card: AddressCard, props: PropRequest, path?: string): Promise<string> {
  return propResponse(path ?? pathOf({ kind: 'card', person: card.ownerId }, principal.accountId), await answer(props, reportProperties(card, props)));
}
