// Helpers for the address-book suites: an address-book password made through the real API, a
// raw DAV client (Basic auth, any method, any body), and a reader of 207 Multi-Status answers
// built on @xmldom/xmldom, namespace-aware as a client's own parser is.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import type { Document, Element } from '@xmldom/xmldom';
import type { TestApp } from './app.js';
import type { Device } from './client.js';
import { STEP_UP_HEADER, stepUp } from './step-up.js';

export const DAV = 'DAV:';
export const CARDDAV = 'urn:ietf:params:xml:ns:carddav';
export const CS = 'http://calendarserver.org/ns/';
export const clark = (namespace: string, local: string) => `{${namespace}}${local}`;

/** What an address book signs in with: the username and password from POST /dav-tokens. */
export interface DavLogin {
  username: string;
  password: string;
  tokenId: string;
  accountId: string;
}

/** POST /api/v1/dav-tokens (step-up, Idempotency-Key) as the device: a new address-book password. */
export async function davLogin(t: TestApp, device: Device, label = 'Phone'): Promise<DavLogin> {
  const res = await t.client.as(device, 'POST', '/api/v1/dav-tokens', {
    body: { label },
    headers: { 'idempotency-key': randomUUID(), [STEP_UP_HEADER]: await stepUp(t.client, device) },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { username: res.body.username, password: res.body.secret, tokenId: res.body.id, accountId: device.accountId };
}

export const basicAuth = (login: { username: string; password: string }) => `Basic ${Buffer.from(`${login.username}:${login.password}`).toString('base64')}`;

export interface DavResult {
  status: number;
  headers: Headers;
  text: string;
}

/** One request as a DAV client sends it: any method, an XML body, Basic auth unless `login` is null. */
export async function dav(
  baseUrl: string,
  login: DavLogin | null,
  method: string,
  path: string,
  options: { body?: string | Buffer; depth?: string; headers?: Record<string, string> } = {},
): Promise<DavResult> {
  const headers: Record<string, string> = { ...(options.body !== undefined ? { 'content-type': 'application/xml; charset=utf-8' } : {}), ...options.headers };
  if (login) headers.authorization = basicAuth(login);
  if (options.depth !== undefined) headers.depth = options.depth;
  const body = Buffer.isBuffer(options.body) ? new Uint8Array(options.body) : options.body;
  const res = await fetch(`${baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

export function parseXml(text: string): Document {
  return new DOMParser({
    onError: (level, message) => {
      if (level !== 'warning') throw new Error(`${message}\n${text}`);
    },
  }).parseFromString(text, 'application/xml');
}

const nameOf = (el: Element) => clark(el.namespaceURI ?? '', el.localName ?? '');
export function childElements(el: Element): Element[] {
  const out: Element[] = [];
  for (let node = el.firstChild; node; node = node.nextSibling) if (node.nodeType === 1) out.push(node as Element);
  return out;
}
const childNamed = (el: Element, name: string) => childElements(el).find((c) => nameOf(c) === name);

export interface Propstat {
  status: string;
  props: Map<string, Element>;
}

export interface MultistatusResponse {
  href: string;
  /** A response-level status (a member gone, a truncation), when there is one. */
  status?: string;
  propstats: Propstat[];
  error?: Element;
  /** The props of the 200 propstat. */
  ok: Map<string, Element>;
  /** The names in the 404 propstat. */
  missing: string[];
}

/** A 207 body as a client reads it: each DAV:response, and the DAV:sync-token at the end. */
export function readMultistatus(text: string): { responses: MultistatusResponse[]; syncToken?: string } {
  const root = parseXml(text).documentElement!;
  assert.equal(nameOf(root), clark(DAV, 'multistatus'), text);
  const responses = childElements(root)
    .filter((c) => nameOf(c) === clark(DAV, 'response'))
    .map((response) => {
      const propstats = childElements(response)
        .filter((c) => nameOf(c) === clark(DAV, 'propstat'))
        .map((ps) => ({
          status: childNamed(ps, clark(DAV, 'status'))!.textContent!,
          props: new Map(childElements(childNamed(ps, clark(DAV, 'prop'))!).map((p) => [nameOf(p), p])),
        }));
      const statusEl = childNamed(response, clark(DAV, 'status'));
      return {
        href: childNamed(response, clark(DAV, 'href'))!.textContent!,
        ...(statusEl ? { status: statusEl.textContent! } : {}),
        propstats,
        ...(childNamed(response, clark(DAV, 'error')) ? { error: childNamed(response, clark(DAV, 'error')) } : {}),
        ok: propstats.find((p) => p.status === 'HTTP/1.1 200 OK')?.props ?? new Map(),
        missing: [...(propstats.find((p) => p.status === 'HTTP/1.1 404 Not Found')?.props.keys() ?? [])],
      };
    });
  const token = childNamed(root, clark(DAV, 'sync-token'));
  return { responses, ...(token ? { syncToken: token.textContent! } : {}) };
}

/** The hrefs inside a property (current-user-principal, addressbook-home-set, owner). */
export const hrefsIn = (el: Element | undefined) => (el ? childElements(el).filter((c) => nameOf(c) === clark(DAV, 'href')).map((c) => c.textContent!) : []);
/** The child element names of a property (resourcetype, privileges, reports). */
export const namesIn = (el: Element | undefined): string[] => (el ? childElements(el).flatMap((c) => [nameOf(c), ...namesIn(c)]) : []);

/** The D:error of a refusal: the names of its conditions. */
export function errorConditions(text: string): string[] {
  const root = parseXml(text).documentElement!;
  assert.equal(nameOf(root), clark(DAV, 'error'), text);
  return childElements(root).map(nameOf);
}

/** The paths of an account's address book. */
export function bookPaths(accountId: string) {
  return {
    principal: `/dav/principals/${accountId}/`,
    home: `/dav/addressbooks/${accountId}/`,
    book: `/dav/addressbooks/${accountId}/following/`,
    card: (personId: string) => `/dav/addressbooks/${accountId}/following/${personId}.vcf`,
  };
}

/** A sync-collection body (RFC 6578 §6.1) as Thunderbird sends it: getetag and address-data. */
export const syncBody = (token: string, props = '<d:getetag/><card:address-data/>', extra = '') =>
  `<?xml version="1.0" encoding="utf-8"?><d:sync-collection xmlns:d="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level>${extra}<d:prop>${props}</d:prop></d:sync-collection>`;

/** A vCard's unfolded lines, CRLF or LF. */
export const vcardLines = (vcard: string) => vcard.replace(/\r?\n[ \t]/g, '').split(/\r?\n/).filter(Boolean);
