// The address book's pure parts: request paths and hrefs (CARDDAV.md "URL layout"), sync tokens
// (RFC 6578 §3.2), what REPORT and PROPFIND bodies ask (RFC 4918 §14, RFC 6352 §10), the
// address-data subset and filters on vCards as the card builder writes them, and the XML
// written back (element names, escaping).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DavError } from './dav-error.js';
import { readPropfind, readReport } from './dav-requests.js';
import { pathOf, resolveHref, resolvePath } from './resources.js';
import { syncTokens } from './sync-token.js';
import { matchesFilter, vcardSubset } from './vcard-parts.js';
import { element, escapeXml } from './xml.js';

const ME = 'acc_AAAAAAAAAAAAAAAAAAAAAA';
const body = (xml: string) => Buffer.from(xml);
const refusal = (fn: () => unknown): DavError => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof DavError, String(error));
    return error;
  }
  throw new Error('not refused');
};

describe('address-book paths', () => {
  it('resolves the caller\'s resources with or without a collection\'s trailing slash, and nothing of another account', () => {
    assert.deepEqual(resolvePath('/dav', ME), { kind: 'root' });
    assert.deepEqual(resolvePath('/dav/', ME), { kind: 'root' });
    assert.deepEqual(resolvePath('/dav/principals/', ME), { kind: 'principals' });
    assert.deepEqual(resolvePath(`/dav/principals/${ME}`, ME), { kind: 'principal' });
    assert.deepEqual(resolvePath(`/dav/addressbooks/${ME}/`, ME), { kind: 'home' });
    assert.deepEqual(resolvePath(`/dav/addressbooks/${ME}/following`, ME), { kind: 'book' });
    assert.deepEqual(resolvePath(`/dav/addressbooks/${ME}/following/acc_B.vcf`, ME), { kind: 'card', person: 'acc_B' });
    for (const other of ['/dav/principals/acc_other/', '/dav/addressbooks/acc_other/following/', `/dav/addressbooks/${ME}/others/`, `/dav/addressbooks/${ME}/following/x.ics`, `/dav/addressbooks/${ME}/following/.vcf`, '/dav//principals/', '/dav/%E0%A4%A/', '/other/', `/dav/principals/${ME}/x/`]) {
      assert.equal(resolvePath(other, ME), undefined, other);
    }
  });

  it('writes canonical absolute paths, collections ending in a slash, and reads hrefs as paths or full URLs', () => {
    assert.equal(pathOf({ kind: 'book' }, ME), `/dav/addressbooks/${ME}/following/`);
    assert.equal(pathOf({ kind: 'card', person: 'a b' }, ME), `/dav/addressbooks/${ME}/following/a%20b.vcf`);
    assert.deepEqual(resolveHref(`https://id.example.org/dav/addressbooks/${ME}/following/acc_B.vcf`, ME), { kind: 'card', person: 'acc_B' });
    assert.deepEqual(resolveHref(` /dav/addressbooks/${ME}/following/a%20b.vcf `, ME), { kind: 'card', person: 'a b' });
    assert.equal(resolveHref('http://[bad', ME), undefined);
  });
});

describe('sync tokens', () => {
  const tokens = syncTokens('https://id.example.org/');
  it('are URIs under the public origin and read back only in that exact form', () => {
    assert.equal(tokens.format(42), 'https://id.example.org/ns/sync/42');
    assert.equal(tokens.parse('https://id.example.org/ns/sync/42'), 42);
    assert.equal(tokens.parse('https://id.example.org/ns/sync/0'), 0);
    for (const bad of ['https://id.example.org/ns/sync/042', 'https://id.example.org/ns/sync/-1', 'https://id.example.org/ns/sync/1.5', 'http://id.example.org/ns/sync/1', '5C3F1A7E-2D8B-4F60-9E21-7B4C8D9A0F13', 'https://id.example.org/ns/sync/99999999999999999', '']) {
      assert.equal(tokens.parse(bad), undefined, bad);
    }
  });
});

describe('request bodies', () => {
  it('PROPFIND: names by namespace whatever the prefixes; no body is allprop; propname; not a propfind is 400', () => {
    assert.deepEqual(readPropfind(undefined), { kind: 'all', include: [] });
    assert.deepEqual(readPropfind(body('<x:propfind xmlns:x="DAV:" xmlns:y="urn:ietf:params:xml:ns:carddav"><x:prop><x:getetag/><y:addressbook-home-set/><z xmlns="urn:other"/></x:prop></x:propfind>')), {
      kind: 'names',
      names: ['{DAV:}getetag', '{urn:ietf:params:xml:ns:carddav}addressbook-home-set', '{urn:other}z'],
    });
    assert.deepEqual(readPropfind(body('<propfind xmlns="DAV:"><propname/></propfind>')), { kind: 'propname' });
    assert.deepEqual(readPropfind(body('<propfind xmlns="DAV:"><allprop/><include><getetag/></include></propfind>')), { kind: 'all', include: ['{DAV:}getetag'] });
    assert.equal(refusal(() => readPropfind(body('<propfind><prop/></propfind>'))).status, 400);
    assert.equal(refusal(() => readPropfind(body('<propfind xmlns="DAV:"/>'))).status, 400);
  });

  it('refuses a DOCTYPE, bytes that are not UTF-8, and XML that is not well-formed, with 400', () => {
    for (const bad of [body('<!DOCTYPE x><propfind xmlns="DAV:"/>'), body('<?xml version="1.0"?>\n<!doctype x [<!ENTITY e SYSTEM "file:///etc/passwd">]><propfind xmlns="DAV:">&e;</propfind>'), Buffer.from([0x3c, 0xc3, 0x28, 0x3e]), body('<propfind xmlns="DAV:"><prop></propfind>'), body('<a:b/>')]) {
      assert.equal(refusal(() => readPropfind(bad)).status, 400, bad.toString());
    }
  });

  it('REPORT: multiget hrefs and the address-data subset; sync-collection token, level and limit; a query filter; anything else 403 supported-report', () => {
    assert.deepEqual(
      readReport(body('<C:addressbook-multiget xmlns:C="urn:ietf:params:xml:ns:carddav" xmlns:D="DAV:"><D:prop><D:getetag/><C:address-data><C:prop name="uid"/><C:prop name="FN"/></C:address-data></D:prop><D:href> /a.vcf </D:href><D:href>/b.vcf</D:href></C:addressbook-multiget>')),
      { report: 'multiget', props: { kind: 'names', names: ['{DAV:}getetag', '{urn:ietf:params:xml:ns:carddav}address-data'], addressData: { properties: ['UID', 'FN'] } }, hrefs: ['/a.vcf', '/b.vcf'] },
    );
    assert.deepEqual(readReport(body('<sync-collection xmlns="DAV:"><sync-token/><sync-level>1</sync-level><limit><nresults>10</nresults></limit><prop><getetag/></prop></sync-collection>')), {
      report: 'sync',
      token: '',
      limit: 10,
      props: { kind: 'names', names: ['{DAV:}getetag'] },
    });
    assert.equal(refusal(() => readReport(body('<sync-collection xmlns="DAV:"><sync-level>1</sync-level><prop/></sync-collection>'))).status, 400);
    assert.equal(refusal(() => readReport(body('<sync-collection xmlns="DAV:"><sync-token/><sync-level>2</sync-level><prop/></sync-collection>'))).status, 400);
    assert.equal(refusal(() => readReport(body('<sync-collection xmlns="DAV:"><sync-token/><limit><nresults>0</nresults></limit><prop/></sync-collection>'))).status, 400);
    const query = readReport(body('<C:addressbook-query xmlns:C="urn:ietf:params:xml:ns:carddav" xmlns:D="DAV:"><D:prop><D:getetag/></D:prop><C:filter test="allof"><C:prop-filter name="email"><C:text-match match-type="ends-with" negate-condition="yes">@example.org</C:text-match></C:prop-filter><C:prop-filter name="UID"/></C:filter></C:addressbook-query>'));
    assert.deepEqual(query, {
      report: 'query',
      props: { kind: 'names', names: ['{DAV:}getetag'] },
      filter: { allOf: true, props: [{ name: 'EMAIL', allOf: false, matches: [{ text: '@example.org', collation: 'i;unicode-casemap', matchType: 'ends-with', negate: true }] }, { name: 'UID', allOf: false, matches: [] }] },
    });
    const unsupported = refusal(() => readReport(body('<C:addressbook-query xmlns:C="urn:ietf:params:xml:ns:carddav"><C:filter><C:prop-filter name="FN"><C:is-not-defined/></C:prop-filter></C:filter></C:addressbook-query>')));
    assert.deepEqual([unsupported.status, unsupported.condition], [403, '<C:supported-filter/>']);
    const collation = refusal(() => readReport(body('<C:addressbook-query xmlns:C="urn:ietf:params:xml:ns:carddav"><C:filter><C:prop-filter name="FN"><C:text-match collation="i;klingon">x</C:text-match></C:prop-filter></C:filter></C:addressbook-query>')));
    assert.deepEqual([collation.status, collation.condition], [403, '<C:supported-collation/>']);
    const v4 = refusal(() => readReport(body('<C:addressbook-multiget xmlns:C="urn:ietf:params:xml:ns:carddav" xmlns:D="DAV:"><D:prop><C:address-data version="4.0"/></D:prop></C:addressbook-multiget>')));
    assert.deepEqual([v4.status, v4.condition], [403, '<C:supported-address-data/>']);
    const other = refusal(() => readReport(body('<D:expand-property xmlns:D="DAV:"/>')));
    assert.deepEqual([other.status, other.condition], [403, '<D:supported-report/>']);
  });
});

describe('vCards the card builder wrote', () => {
  // Folded at 75 octets with a leading space, a group, a quoted parameter with a colon, escapes.
  const vcard = [
    'BEGIN:VCARD',
    'VERSION:3.0',
    'UID:urn:uuid:0f4c1d6e-8a5b-8c3d-9e2f-1a2b3c4d5e6f',
    'FN:Ada Lovelace\\, Countess',
    'NICKNAME:Ada',
    'item1.EMAIL;TYPE=INTERNET:ada@example.org',
    'item1.X-ABLabel:Lab',
    'ADR;TYPE="home,x:y":;;12 Main St\\nFlat 3;London;;SW1;United Kin',
    ' gdom',
    'END:VCARD',
    '',
  ].join('\r\n');

  it('keeps only the properties asked for, with BEGIN, VERSION and END, folded lines whole', () => {
    assert.equal(vcardSubset(vcard, ['uid', 'ADR']), ['BEGIN:VCARD', 'VERSION:3.0', 'UID:urn:uuid:0f4c1d6e-8a5b-8c3d-9e2f-1a2b3c4d5e6f', 'ADR;TYPE="home,x:y":;;12 Main St\\nFlat 3;London;;SW1;United Kin', ' gdom', 'END:VCARD', ''].join('\r\n'));
    assert.equal(vcardSubset(vcard, []), 'BEGIN:VCARD\r\nVERSION:3.0\r\nEND:VCARD\r\n');
  });

  it('matches text filters on unfolded, unescaped values by collation and match type', () => {
    const match = (name: string, text: string, extra: Partial<{ collation: 'i;unicode-casemap' | 'i;ascii-casemap' | 'i;octet'; matchType: 'equals' | 'contains' | 'starts-with' | 'ends-with'; negate: boolean }> = {}) =>
      matchesFilter(vcard, { allOf: false, props: [{ name, allOf: false, matches: [{ text, collation: 'i;unicode-casemap', matchType: 'contains', negate: false, ...extra }] }] });
    assert.ok(match('FN', 'ada lovelace, countess', { matchType: 'equals' }));
    assert.ok(!match('FN', 'ada lovelace, countess', { matchType: 'equals', collation: 'i;octet' }));
    assert.ok(match('EMAIL', '@EXAMPLE.ORG', { matchType: 'ends-with', collation: 'i;ascii-casemap' }));
    assert.ok(match('ADR', 'United Kingdom'), 'folded lines are read unfolded');
    assert.ok(match('ADR', 'St\nFlat'), 'escapes are read as text');
    assert.ok(!match('NICKNAME', 'ada', { negate: true }));
    assert.ok(!match('TEL', ''), 'a property that is not there matches no text');
    assert.ok(matchesFilter(vcard, { allOf: true, props: [{ name: 'UID', allOf: false, matches: [] }, { name: 'NICKNAME', allOf: false, matches: [] }] }));
    assert.ok(!matchesFilter(vcard, { allOf: true, props: [{ name: 'UID', allOf: false, matches: [] }, { name: 'TEL', allOf: false, matches: [] }] }));
  });
});

describe('XML written back', () => {
  it('names elements with the fixed prefixes, or declares a client\'s own namespace; escapes text and drops what XML cannot hold', () => {
    assert.equal(element('{DAV:}getetag', '"x"'), '<D:getetag>"x"</D:getetag>');
    assert.equal(element('{http://calendarserver.org/ns/}me-card'), '<CS:me-card/>');
    assert.equal(element('{http://me.com/_namespace/}bulk-requests'), '<X:bulk-requests xmlns:X="http://me.com/_namespace/"/>');
    assert.equal(element('{}plain'), '<plain xmlns=""/>');
    assert.equal(escapeXml('a<b>&"c"\u0001\uD800'), 'a&lt;b&gt;&amp;&quot;c&quot;');
  });
});
