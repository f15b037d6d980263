import { DOMParser } from '@xmldom/xmldom';
import type { Document, Element } from '@xmldom/xmldom';
import { DavError } from './dav-error.js';

/**
 * XML in and out of the address book. Requests are read namespace-aware with @xmldom/xmldom
 * (RFC 4918 §17: a name is its namespace and local name; clients pick their own prefixes).
 * Responses are written from strings this file escapes, with fixed prefixes for the three
 * namespaces the address book speaks.
 */

export const DAV = 'DAV:';
export const CARDDAV = 'urn:ietf:params:xml:ns:carddav';
export const CALENDARSERVER = 'http://calendarserver.org/ns/';

/** A property or element name in Clark notation, `{namespace}local`: how names are compared. */
export const clark = (namespace: string, local: string) => `{${namespace}}${local}`;

const PREFIXES: Record<string, string> = { [DAV]: 'D', [CARDDAV]: 'C', [CALENDARSERVER]: 'CS' };
/** The namespace declarations of a response's root element. */
export const NAMESPACES = Object.entries(PREFIXES)
  .map(([namespace, prefix]) => `xmlns:${prefix}="${namespace}"`)
  .join(' ');

const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
/**
 * Character data and attribute values (XML 1.0 §2.4, §3.1). Characters XML cannot carry at all
 * (controls other than tab and line breaks, lone surrogates) are dropped: they never occur in
 * what the service stores, and a response must stay well-formed whatever it holds.
 */
export function escapeXml(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '').replace(/[&<>"']/g, (c) => TEXT_ESCAPES[c]!);
}

/**
 * A vCard inside an XML answer (C:address-data): escaped, and each CR written `&#13;`. A parser
 * turns a raw CRLF into LF (XML 1.0 §2.11), so the vCard a client reads back would lose the CRLF
 * line ends RFC 6350 §3.2 requires; a character reference survives it. sabre/dav does the same
 * for Apple's clients (sabre-io/dav#36).
 */
export const escapeVcardXml = (vcard: string): string => escapeXml(vcard).replace(/\r/g, '&#13;');

/**
 * An element with the given content (already XML), named by its Clark name: one of the fixed
 * prefixes, or its own namespace declared on it (a property a client asked for in a namespace
 * the service does not know goes back in its 404 propstat exactly as named).
 */
export function element(name: string, content = ''): string {
  const match = /^\{([^}]*)\}(.+)$/.exec(name);
  const namespace = match ? match[1]! : '';
  const local = match ? match[2]! : name;
  const prefix = PREFIXES[namespace];
  const open = prefix ? `${prefix}:${local}` : `X:${local} xmlns:X="${escapeXml(namespace)}"`;
  const close = prefix ? `${prefix}:${local}` : `X:${local}`;
  if (!prefix && namespace === '') return content ? `<${local} xmlns="">${content}</${local}>` : `<${local} xmlns=""/>`;
  return content ? `<${open}>${content}</${close}>` : `<${open}/>`;
}

/** A DAV:href of an absolute path (RFC 4918 §8.3: hrefs are URI references; ours are absolute paths). */
export const href = (path: string) => `<D:href>${escapeXml(path)}</D:href>`;

export const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>\n';

/** A DAV:error body naming the precondition that failed (RFC 4918 §16). */
export const errorBody = (condition: string) => `${XML_DECLARATION}<D:error ${NAMESPACES}>${condition}</D:error>`;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a request body as an XML document. A DOCTYPE is refused before parsing: no request of
 * the protocol needs one, and a document type is how entity expansion and external entities
 * get in (RFC 4918 §20.6). Not UTF-8 or not well-formed: 400 (RFC 4918 §8.2).
 */
export function parseXml(body: Buffer): Document {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new DavError(400, 'the body is not UTF-8');
  }
  if (/<!DOCTYPE/i.test(text)) throw new DavError(400, 'a document type declaration is not accepted');
  try {
    const parser = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message);
      },
    });
    return parser.parseFromString(text, 'application/xml');
  } catch {
    throw new DavError(400, 'the body is not well-formed XML');
  }
}

/** The Clark name of an element. */
export const nameOf = (el: Element) => clark(el.namespaceURI ?? '', el.localName ?? el.nodeName);

/** The child elements of an element (text, comments and processing instructions skipped). */
export function children(el: Element): Element[] {
  const out: Element[] = [];
  for (let node = el.firstChild; node; node = node.nextSibling) if (node.nodeType === 1) out.push(node as Element);
  return out;
}

/** The first child element with this Clark name. */
export const child = (el: Element, name: string) => children(el).find((c) => nameOf(c) === name);

/** The text an element holds, trimmed. */
export const textOf = (el: Element | undefined) => (el?.textContent ?? '').trim();
