import type { Element } from '@xmldom/xmldom';
import { DavError } from './dav-error.js';
import { CARDDAV, DAV, child, children, clark, nameOf, parseXml, textOf } from './xml.js';

/**
 * What PROPFIND and REPORT bodies ask, read from the XML into plain values: which properties
 * (RFC 4918 §14.20, §14.2, §14.17), which cards (RFC 6352 §8.7), what changed since a token
 * (RFC 6578 §6.1), and which cards match a filter (RFC 6352 §8.6, §10.5).
 */

/** Which parts of a card's vCard to send (RFC 6352 §10.4.2): every property, or only these names. */
export interface AddressDataRequest {
  properties?: string[];
}

export type PropRequest =
  /** DAV:prop: these properties; `addressData` when C:address-data is among them (REPORTs only). */
  | { kind: 'names'; names: string[]; addressData?: AddressDataRequest }
  /** DAV:allprop (with DAV:include's names): every property the resource has. */
  | { kind: 'all'; include: string[] }
  /** DAV:propname: the names only. */
  | { kind: 'propname' };

export interface TextMatch {
  text: string;
  collation: 'i;unicode-casemap' | 'i;ascii-casemap' | 'i;octet';
  matchType: 'equals' | 'contains' | 'starts-with' | 'ends-with';
  negate: boolean;
}

export interface PropFilter {
  /** The vCard property name, upper case. */
  name: string;
  allOf: boolean;
  /** No text-match: the property merely has to be there. */
  matches: TextMatch[];
}

export interface QueryFilter {
  allOf: boolean;
  props: PropFilter[];
}

export type Report =
  | { report: 'multiget'; props: PropRequest; hrefs: string[] }
  | { report: 'sync'; token: string; limit?: number; props: PropRequest }
  | { report: 'query'; props: PropRequest; filter?: QueryFilter; limit?: number };

export const ADDRESS_DATA = clark(CARDDAV, 'address-data');

/** C:address-data's attributes and children: only vCard 3.0 is served (CARDDAV.md "Card content"). */
function addressData(el: Element): AddressDataRequest {
  const type = (el.getAttribute('content-type') || 'text/vcard').toLowerCase();
  const version = el.getAttribute('version') || '3.0';
  if (type !== 'text/vcard' || version !== '3.0') {
    throw new DavError(403, 'only text/vcard 3.0 is served', '<C:supported-address-data/>');
  }
  const wanted = children(el).filter((c) => nameOf(c) === clark(CARDDAV, 'prop'));
  if (wanted.length === 0 || children(el).some((c) => nameOf(c) === clark(CARDDAV, 'allprop'))) return {};
  return { properties: wanted.map((c) => (c.getAttribute('name') ?? '').toUpperCase()).filter(Boolean) };
}

/** The DAV:prop, DAV:allprop or DAV:propname among an element's children. */
function propRequest(el: Element, required: boolean): PropRequest {
  const prop = child(el, clark(DAV, 'prop'));
  if (prop) {
    const names = children(prop).map(nameOf);
    const data = children(prop).find((c) => nameOf(c) === ADDRESS_DATA);
    return { kind: 'names', names, ...(data ? { addressData: addressData(data) } : {}) };
  }
  if (child(el, clark(DAV, 'propname'))) return { kind: 'propname' };
  const include = child(el, clark(DAV, 'include'));
  if (child(el, clark(DAV, 'allprop')) || !required) return { kind: 'all', include: include ? children(include).map(nameOf) : [] };
  throw new DavError(400, 'name the properties with DAV:prop');
}

/** A positive whole number of results (DAV:nresults, C:nresults), or 400. */
function nresults(limit: Element | undefined, namespace: string): number | undefined {
  if (!limit) return undefined;
  const text = textOf(child(limit, clark(namespace, 'nresults')));
  if (!/^[1-9][0-9]{0,8}$/.test(text)) throw new DavError(400, 'nresults must be a positive whole number');
  return Number(text);
}

/** A PROPFIND body (RFC 4918 §9.1): none at all asks for allprop. */
export function readPropfind(body: Buffer | undefined): PropRequest {
  if (!body || body.length === 0) return { kind: 'all', include: [] };
  const root = parseXml(body).documentElement!;
  if (nameOf(root) !== clark(DAV, 'propfind')) throw new DavError(400, 'the body of a PROPFIND is a DAV:propfind');
  return propRequest(root, true);
}

const COLLATIONS = ['i;unicode-casemap', 'i;ascii-casemap', 'i;octet'];
const MATCH_TYPES = ['equals', 'contains', 'starts-with', 'ends-with'];
const unsupportedFilter = (what: string) => new DavError(403, `${what} is not supported; filter by text-match`, '<C:supported-filter/>');

/**
 * C:filter (RFC 6352 §10.5): prop-filters with text-matches, or none (a property that is
 * there). Anything else (is-not-defined, param-filter) is refused with C:supported-filter, as
 * the RFC lets a server do (§8.6 precondition), and an unknown collation with
 * C:supported-collation (§8.3).
 */
function readFilter(el: Element): QueryFilter {
  const props: PropFilter[] = [];
  for (const prop of children(el)) {
    if (nameOf(prop) !== clark(CARDDAV, 'prop-filter')) throw unsupportedFilter(`${prop.localName} in a filter`);
    const matches: TextMatch[] = [];
    for (const part of children(prop)) {
      if (nameOf(part) !== clark(CARDDAV, 'text-match')) throw unsupportedFilter(part.localName ?? 'this filter');
      const collation = part.getAttribute('collation') || 'i;unicode-casemap';
      if (!COLLATIONS.includes(collation)) throw new DavError(403, `collation ${collation} is not supported`, '<C:supported-collation/>');
      const matchType = part.getAttribute('match-type') || 'contains';
      if (!MATCH_TYPES.includes(matchType)) throw new DavError(400, `match-type ${matchType} is not one of ${MATCH_TYPES.join(', ')}`);
      matches.push({ text: part.textContent ?? '', collation: collation as TextMatch['collation'], matchType: matchType as TextMatch['matchType'], negate: part.getAttribute('negate-condition') === 'yes' });
    }
    const name = (prop.getAttribute('name') ?? '').toUpperCase();
    if (!name) throw new DavError(400, 'a prop-filter names a property');
    props.push({ name, allOf: prop.getAttribute('test') === 'allof', matches });
  }
  return { allOf: el.getAttribute('test') === 'allof', props };
}

/** A REPORT body: one of the three reports the address book supports (its DAV:supported-report-set). */
export function readReport(body: Buffer | undefined): Report {
  if (!body || body.length === 0) throw new DavError(400, 'a REPORT needs a body');
  const root = parseXml(body).documentElement!;
  switch (nameOf(root)) {
    case clark(CARDDAV, 'addressbook-multiget'):
      return { report: 'multiget', props: propRequest(root, false), hrefs: children(root).filter((c) => nameOf(c) === clark(DAV, 'href')).map((c) => textOf(c)) };
    case clark(DAV, 'sync-collection'): {
      const token = child(root, clark(DAV, 'sync-token'));
      if (!token) throw new DavError(400, 'a sync-collection report carries a DAV:sync-token (empty for the first sync)');
      // RFC 6578 §6.3: "1" or "infinite"; the book holds no collections, so both mean the same.
      const level = textOf(child(root, clark(DAV, 'sync-level'))) || '1';
      if (level !== '1' && level !== 'infinite') throw new DavError(400, 'DAV:sync-level is 1 or infinite');
      const limit = nresults(child(root, clark(DAV, 'limit')), DAV);
      return { report: 'sync', token: textOf(token), props: propRequest(root, false), ...(limit ? { limit } : {}) };
    }
    case clark(CARDDAV, 'addressbook-query'): {
      const filter = child(root, clark(CARDDAV, 'filter'));
      const limit = nresults(child(root, clark(CARDDAV, 'limit')), CARDDAV);
      const read = filter ? readFilter(filter) : undefined;
      return { report: 'query', props: propRequest(root, false), ...(read && read.props.length ? { filter: read } : {}), ...(limit ? { limit } : {}) };
    }
    default:
      // RFC 3253 §3.6: a report the resource does not support.
      throw new DavError(403, `the ${root.localName} report is not supported here`, '<D:supported-report/>');
  }
}
