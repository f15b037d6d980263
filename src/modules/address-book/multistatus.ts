import type { PropRequest } from './dav-requests.js';
import type { PropertyValue } from './properties.js';
import { NAMESPACES, XML_DECLARATION, element, escapeXml, href } from './xml.js';

/**
 * The 207 Multi-Status body (RFC 4918 §13, §14.16): one DAV:response per resource, with a
 * propstat per status. Written as the client expects it: the 200 propstat first, the status line
 * exactly `HTTP/1.1 200 OK` (Thunderbird compares the first DAV:status as a string), hrefs as
 * absolute paths.
 */

export const STATUS = {
  ok: 'HTTP/1.1 200 OK',
  notFound: 'HTTP/1.1 404 Not Found',
  insufficientStorage: 'HTTP/1.1 507 Insufficient Storage',
} as const;

export const MULTISTATUS_OPEN = `${XML_DECLARATION}<D:multistatus ${NAMESPACES}>`;
export const MULTISTATUS_CLOSE = '</D:multistatus>';
export const MULTISTATUS_TYPE = 'application/xml; charset=utf-8';

/** What a resource answers to a property request: the properties it has (with values) and those it has not. */
export interface Answered {
  found: Array<[string, string]>;
  missing: string[];
}

/** The values of the requested properties a resource has, and the names of those it has not. */
export async function answer(request: PropRequest, available: Record<string, PropertyValue>): Promise<Answered> {
  const value = async (name: string) => {
    const v = available[name]!;
    return typeof v === 'string' ? v : v();
  };
  if (request.kind === 'propname') return { found: Object.keys(available).map((name) => [name, '']), missing: [] };
  const names = request.kind === 'all' ? [...new Set([...Object.keys(available), ...request.include])] : [...new Set(request.names)];
  const found: Array<[string, string]> = [];
  const missing: string[] = [];
  for (const name of names) {
    if (name in available) found.push([name, await value(name)]);
    else missing.push(name);
  }
  return { found, missing };
}

const propstat = (props: string, status: string) => `<D:propstat><D:prop>${props}</D:prop><D:status>${status}</D:status></D:propstat>`;

/** One resource's DAV:response: its 200 propstat, then its 404 one; an empty propstat is left out. */
export function propResponse(path: string, answered: Answered): string {
  const ok = answered.found.length ? propstat(answered.found.map(([name, content]) => element(name, content)).join(''), STATUS.ok) : '';
  const missing = answered.missing.length ? propstat(answered.missing.map((name) => element(name)).join(''), STATUS.notFound) : '';
  return `<D:response>${href(path)}${ok}${missing}</D:response>`;
}

/** A DAV:response with a status and no properties: a member gone (404, RFC 6578 §3.5.2), or a truncation (507, §3.6). */
export function statusResponse(path: string, status: string, error?: string): string {
  return `<D:response>${href(path)}<D:status>${status}</D:status>${error ? `<D:error>${error}</D:error>` : ''}</D:response>`;
}

/** The sync-collection report's closing token (RFC 6578 §6.4). */
export const syncTokenElement = (token: string) => `<D:sync-token>${escapeXml(token)}</D:sync-token>`;
