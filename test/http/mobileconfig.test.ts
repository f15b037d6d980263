// The configuration profile the Phone contacts screen offers (src/modules/dav-setup-links/mobileconfig.ts): a
// plist with one com.apple.carddav.account payload carrying exactly the host, port, TLS, principal,
// user name and password of the creation's answer; labels and passwords with markup characters
// stay intact (escaped, never breaking the XML); characters XML cannot hold are left out; every
// PayloadUUID is fresh.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { carddavProfile, xmlText } from '../../src/modules/dav-setup-links/mobileconfig.js';
import { parsePlist } from '../helpers/plist.js';
import type { Plist } from '../helpers/plist.js';

type Dict = Record<string, Plist>;
const UUID = /^[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$/;

const base = {
  serverUrl: 'https://id.example.org/dav/',
  username: 'acc_01HZX',
  password: 'vidcd_dav_X0kVb2yJt8nRw4cLA3qD9m_Qm9vNHJ2ZXJ5LXNlY3JldC1yYW5kb20tYnl0ZXMtMzI',
  accountId: 'acc_01HZX',
  tokenId: 'dav_X0kVb2yJt8nRw4cLA3qD9m',
  label: 'Alice’s iPhone',
};

function payloads(xml: string): { profile: Dict; carddav: Dict } {
  const profile = parsePlist(xml) as Dict;
  const content = profile.PayloadContent as Dict[];
  assert.equal(content.length, 1);
  return { profile, carddav: content[0]! };
}

describe('web: the CardDAV configuration profile', () => {
  it('carries the account as Apple’s reference names it', () => {
    const xml = carddavProfile(base);
    assert.match(xml, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<!DOCTYPE plist PUBLIC "-\/\/Apple\/\/DTD PLIST 1.0\/\/EN"/);
    const { profile, carddav } = payloads(xml);
    assert.equal(profile.PayloadType, 'Configuration');
    assert.equal(profile.PayloadVersion, 1);
    assert.equal(profile.PayloadIdentifier, 'org.example.id.vid.carddav.dav-X0kVb2yJt8nRw4cLA3qD9m');
    assert.deepEqual(
      { ...carddav, PayloadUUID: 'x' },
      {
        PayloadType: 'com.apple.carddav.account',
        PayloadVersion: 1,
        PayloadIdentifier: `${profile.PayloadIdentifier as string}.account`,
        PayloadUUID: 'x',
        PayloadDisplayName: 'Contacts: People I follow',
        PayloadDescription: 'The people you follow on VID, read-only, for Alice’s iPhone.',
        CardDAVAccountDescription: 'People I follow (VID)',
        CardDAVHostName: 'id.example.org',
        CardDAVPort: 443,
        CardDAVUseSSL: true,
        CardDAVPrincipalURL: 'https://id.example.org/dav/principals/acc_01HZX/',
        CardDAVUsername: 'acc_01HZX',
        CardDAVPassword: base.password,
      },
    );
    assert.match(profile.PayloadUUID as string, UUID);
    assert.match(carddav.PayloadUUID as string, UUID);
    assert.notEqual(profile.PayloadUUID, carddav.PayloadUUID);
    assert.notEqual(payloads(carddavProfile(base)).carddav.PayloadUUID, carddav.PayloadUUID, 'a new profile, new UUIDs');
  });

  it('takes the port and TLS from the server URL', () => {
    const { carddav } = payloads(carddavProfile({ ...base, serverUrl: 'http://localhost:8080/dav/' }));
    assert.equal(carddav.CardDAVHostName, 'localhost');
    assert.equal(carddav.CardDAVPort, 8080);
    assert.equal(carddav.CardDAVUseSSL, false);
    assert.equal(carddav.CardDAVPrincipalURL, 'http://localhost:8080/dav/principals/acc_01HZX/');
    assert.equal(payloads(carddavProfile({ ...base, serverUrl: 'https://id.example.org:8443/dav/' })).carddav.CardDAVPort, 8443);
  });

  it('escapes a label and a password with markup characters, and they read back intact', () => {
    const label = 'Tom & Jerry’s <Phone> "work" \'2\'';
    const password = 'a&b<c>d"e\'f]]>g';
    const xml = carddavProfile({ ...base, label, password });
    assert.ok(!xml.includes(label) && !xml.includes(password), 'nothing raw');
    assert.ok(xml.includes('Tom &amp; Jerry’s &lt;Phone&gt; &quot;work&quot; &apos;2&apos;'));
    const { profile, carddav } = payloads(xml);
    assert.equal(carddav.CardDAVPassword, password);
    assert.equal(carddav.PayloadDescription, `The people you follow on VID, read-only, for ${label}.`);
    assert.equal(profile.PayloadDisplayName, `VID contacts on ${label}`);
  });

  it('leaves out what XML 1.0 cannot hold', () => {
    assert.equal(xmlText('a\u0000b\u0008c\u001Fd\uFFFEe\uD800f'), 'abcdef');
    assert.equal(xmlText('tab\tnew\nline\r😀'), 'tab\tnew\nline\r😀');
  });

  it('any label and password parse back as given (less what XML cannot hold)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 64 }), fc.string({ unit: 'binary', maxLength: 80 }), (label, password) => {
        const { carddav } = payloads(carddavProfile({ ...base, label, password }));
        // A parser turns a CR or CRLF in text into LF (XML 1.0 §2.11); passwords hold neither.
        const expected = xmlText(password).replace(/\r\n?/g, '\n').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'");
        assert.equal(carddav.CardDAVPassword, expected);
        assert.ok(String(carddav.PayloadDescription).endsWith('.'));
      }),
      { numRuns: 100 },
    );
  });
});
