// An Apple configuration profile that adds the address book to an iPhone, iPad or Mac in one tap:
// a property list (plist) holding one `com.apple.carddav.account` payload. It is written when a
// setup link is used (POST /dav-setup-links/profile): the phone's browser downloads it once, in
// the answer that made its password, and the server keeps no copy.
//
// Format: Apple's "Configuration Profile Reference" (developer.apple.com/business/documentation/
// Configuration-Profile-Reference.pdf; now developer.apple.com/documentation/devicemanagement):
// - the top level is a dictionary with PayloadType "Configuration", PayloadVersion 1, a
//   PayloadIdentifier (reverse-DNS style; a second profile with the same identifier replaces the
//   first), a PayloadUUID, PayloadDisplayName and PayloadContent, the array of payloads;
// - each payload carries the same five Payload* keys, and the CardDAV payload
//   (Device Management: "CardDAV", com.apple.carddav.account) adds CardDAVAccountDescription,
//   CardDAVHostName, CardDAVPort (integer), CardDAVPrincipalURL, CardDAVUseSSL (boolean),
//   CardDAVUsername and CardDAVPassword.
// The file is XML in Apple's plist DTD ("-//Apple//DTD PLIST 1.0//EN"); strings are XML text, so
// `&`, `<`, `>` and quotes are escaped and characters XML 1.0 cannot carry are left out. It is not
// signed: the device says "Unverified" before installing it, which is true of any profile made
// outside a company's device management.

export interface CardDavProfileInput {
  /** The server's CardDAV root, as the creation answered it: `https://id.example.org/dav/`. */
  serverUrl: string;
  /**
   * The user name the profile signs in with. The account id is best here: it survives a username
   * change (decision 150), and nobody types it.
   */
  username: string;
  /** The address-book password, shown once. */
  password: string;
  /** The account id: the principal is `/dav/principals/{account id}/` (docs/carddav.md). */
  accountId: string;
  /** The password's id, so each phone's profile is its own (installing one never replaces another). */
  tokenId: string;
  /** What the person named the device ("Alice’s iPhone"), shown in the profile's description. */
  label: string;
  /** The account's name as the Contacts app lists it. */
  accountDescription?: string;
  /** Random UUIDs (injected in tests); crypto.randomUUID by default. */
  uuid?: () => string;
}

/** The MIME type Safari and macOS open as a configuration profile. */
export const MOBILECONFIG_TYPE = 'application/x-apple-aspen-config';

/** Leaves out what XML 1.0 cannot hold (§2.2 Char), then escapes markup characters (§2.4). */
export function xmlText(value: string): string {
  return value
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

type PlistValue = string | number | boolean | PlistValue[] | { [key: string]: PlistValue };

function plist(value: PlistValue, indent: string): string {
  const inner = `${indent}  `;
  if (typeof value === 'string') return `${indent}<string>${xmlText(value)}</string>`;
  if (typeof value === 'number') return `${indent}<integer>${Math.trunc(value)}</integer>`;
  if (typeof value === 'boolean') return `${indent}<${value}/>`;
  if (Array.isArray(value)) return [`${indent}<array>`, ...value.map((item) => plist(item, inner)), `${indent}</array>`].join('\n');
  const entries = Object.entries(value).flatMap(([key, item]) => [`${inner}<key>${xmlText(key)}</key>`, plist(item, inner)]);
  return [`${indent}<dict>`, ...entries, `${indent}</dict>`].join('\n');
}

/** The reverse-DNS identifier's parts: letters, digits and hyphens only (the id keeps its case, so stays unique). */
const dnsLabel = (part: string): string => part.replace(/[^A-Za-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || 'x';

/** The whole .mobileconfig file, as text. */
export function carddavProfile(input: CardDavProfileInput): string {
  const uuid = input.uuid ?? (() => crypto.randomUUID());
  const url = new URL(input.serverUrl);
  const ssl = url.protocol === 'https:';
  const port = url.port ? Number(url.port) : ssl ? 443 : 80;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const principal = new URL(`${url.pathname.replace(/\/?$/, '/')}principals/${encodeURIComponent(input.accountId)}/`, url.origin).href;
  const description = input.accountDescription ?? 'People I follow (VID)';
  const identifier = [...host.split('.').reverse().map(dnsLabel), 'vid', 'carddav', dnsLabel(input.tokenId)].join('.');
  const carddav: PlistValue = {
    PayloadType: 'com.apple.carddav.account',
    PayloadVersion: 1,
    PayloadIdentifier: `${identifier}.account`,
    PayloadUUID: uuid().toUpperCase(),
    PayloadDisplayName: 'Contacts: People I follow',
    PayloadDescription: `The people you follow on VID, read-only, for ${input.label}.`,
    CardDAVAccountDescription: description,
    CardDAVHostName: host,
    CardDAVPort: port,
    CardDAVUseSSL: ssl,
    CardDAVPrincipalURL: principal,
    CardDAVUsername: input.username,
    CardDAVPassword: input.password,
  };
  const profile: PlistValue = {
    PayloadType: 'Configuration',
    PayloadVersion: 1,
    PayloadIdentifier: identifier,
    PayloadUUID: uuid().toUpperCase(),
    PayloadDisplayName: `VID contacts on ${input.label}`,
    PayloadDescription: 'Adds the people you follow on VID to Contacts. Read-only; their cards stay current by themselves.',
    PayloadOrganization: 'VID',
    PayloadRemovalDisallowed: false,
    PayloadContent: [carddav],
  };
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    plist(profile, ''),
    '</plist>',
    '',
  ].join('\n');
}
