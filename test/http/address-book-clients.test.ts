// Golden tests: the exact requests iOS, macOS, Thunderbird, DAVx5 and Evolution send to set up
// and sync a CardDAV address book (test/fixtures/carddav-requests.ts), replayed against the
// real server, and the answers read the way those clients read them (CARDDAV.md "Clients").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PUBLIC_ORIGIN } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import type { Device } from '../helpers/client.js';
import { startSocialApp } from '../helpers/social.js';
import type { Social } from '../helpers/social.js';
import { CARDDAV, CS, DAV, bookPaths, clark, dav, davLogin, errorConditions, hrefsIn, namesIn, readMultistatus, vcardLines } from '../helpers/address-book.js';
import type { DavLogin, MultistatusResponse } from '../helpers/address-book.js';
import { APPLE, DAVX5, EVOLUTION, THUNDERBIRD, fill } from '../fixtures/carddav-requests.js';

const OK = 'HTTP/1.1 200 OK';
const NOT_FOUND = 'HTTP/1.1 404 Not Found';
const D = (local: string) => clark(DAV, local);
const C = (local: string) => clark(CARDDAV, local);

/** What every client relies on in a 207: XML, every href an absolute path, collections with a slash, the 200 propstat first with its exact status line. */
function assertShape(res: { status: number; headers: Headers; text: string }): MultistatusResponse[] {
  assert.equal(res.status, 207, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/xml; charset=utf-8$/);
  const { responses } = readMultistatus(res.text);
  for (const response of responses) {
    assert.match(response.href, /^\/dav\//, `href ${response.href} is an absolute path`);
    if (response.propstats.length) {
      assert.equal(response.propstats[0]!.status.startsWith('HTTP/1.1 2'), response.ok.size > 0, 'the 200 propstat comes first');
      for (const ps of response.propstats) assert.ok(ps.status === OK || ps.status === NOT_FOUND, ps.status);
      const types = namesIn(response.ok.get(D('resourcetype')));
      if (types.includes(D('collection')) || types.includes(D('principal'))) assert.ok(response.href.endsWith('/'), `collection ${response.href} ends in /`);
    }
  }
  return responses;
}

const byHref = (responses: MultistatusResponse[], href: string) => {
  const found = responses.find((r) => r.href === href);
  assert.ok(found, `no response for ${href} in ${responses.map((r) => r.href).join(', ')}`);
  return found;
};
const text = (response: MultistatusResponse, name: string) => response.ok.get(name)?.textContent ?? undefined;

for (const backend of backends) {
  describe(`address book: the requests real clients send [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: Social;
    let ada: Device;
    let bob: Device;
    let reader: Device;
    let login: DavLogin;
    let paths: ReturnType<typeof bookPaths>;
    const req = (method: string, path: string, options: Parameters<typeof dav>[4] = {}) => dav(t.baseUrl, login, method, path, options);

    before(async () => {
      ({ t, s } = await startSocialApp(backend));
      ada = await s.person('ada');
      bob = await s.person('bob');
      reader = await s.person('reader');
      for (const [owner, nick, email] of [[ada, 'Ada Lovelace', 'ada@example.org'], [bob, 'Bob Babbage', 'bob@example.org']] as const) {
        assert.equal((await t.client.as(owner, 'PATCH', '/api/v1/me', { body: { display_name: nick }, headers: { 'if-match': '"1"' } })).status, 200);
        const nickname = await s.field(owner, { type: 'nickname', value: nick.split(' ')[0]! });
        const mail = await s.field(owner, { type: 'email', value: email });
        const profile = await s.profile(owner, 'Friends');
        await s.expose(owner, profile.id, nickname.id);
        await s.expose(owner, profile.id, mail.id);
        await s.connect(reader, owner, profile.id);
      }
      login = await davLogin(t, reader);
      paths = bookPaths(reader.accountId);
    });
    after(() => t.close());

    it('iOS and macOS: .well-known, the principal, the home set, CTag, listing, multiget, sync; writes are refused for good', async () => {
      // RFC 6764 §5: every method on the well-known URI is redirected, without credentials.
      const wellKnown = await dav(t.baseUrl, null, 'PROPFIND', '/.well-known/carddav', { body: APPLE.principalLookup, depth: '0' });
      assert.equal(wellKnown.status, 301);
      assert.equal(wellKnown.headers.get('location'), `${PUBLIC_ORIGIN}/dav/`, 'absolute, from PUBLIC_ORIGIN');
      // iOS asks without credentials first and answers the challenge.
      const anonymous = await dav(t.baseUrl, null, 'PROPFIND', '/dav/', { body: APPLE.principalLookup, depth: '0' });
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.headers.get('www-authenticate'), 'Basic realm="VID", charset="UTF-8"');
      assert.doesNotMatch(anonymous.headers.get('content-type') ?? '', /problem\+json/);

      const root = byHref(assertShape(await req('PROPFIND', '/dav/', { body: APPLE.principalLookup, depth: '0' })), '/dav/');
      assert.deepEqual(hrefsIn(root.ok.get(D('current-user-principal'))), [paths.principal]);
      assert.deepEqual(root.missing, [D('principal-URL')]);

      const principal = byHref(assertShape(await req('PROPFIND', paths.principal, { body: APPLE.principal, depth: '0' })), paths.principal);
      assert.deepEqual(hrefsIn(principal.ok.get(C('addressbook-home-set'))), [paths.home]);
      assert.deepEqual(hrefsIn(principal.ok.get(D('principal-URL'))), [paths.principal]);
      assert.deepEqual(hrefsIn(principal.ok.get(D('principal-collection-set'))), ['/dav/principals/']);
      assert.equal(text(principal, D('displayname')), reader.username);
      // Asked, unknown: in the 404 propstat, in the client's own namespaces.
      assert.deepEqual(principal.missing.sort(), [C('directory-gateway'), clark(CS, 'email-address-set'), D('resource-id')].sort());

      const options = await req('OPTIONS', paths.principal);
      assert.equal(options.status, 200);
      assert.equal(options.headers.get('dav'), '1, 3, access-control, addressbook');
      assert.equal(options.headers.get('allow'), 'OPTIONS, GET, HEAD, PROPFIND, REPORT');

      const home = assertShape(await req('PROPFIND', paths.home, { body: APPLE.home, depth: '1' }));
      assert.deepEqual(home.map((r) => r.href), [paths.home, paths.book], 'macOS uses the first book: there is one');
      assert.ok(byHref(home, paths.home).missing.includes(D('displayname')), 'the home has no name of a book');
      const book = byHref(home, paths.book);
      assert.deepEqual(namesIn(book.ok.get(D('resourcetype'))).sort(), [C('addressbook'), D('collection')].sort());
      assert.equal(text(book, D('displayname')), 'People I follow');
      assert.deepEqual(hrefsIn(book.ok.get(D('owner'))), [paths.principal]);
      assert.deepEqual(namesIn(book.ok.get(D('current-user-privilege-set'))).filter((n) => n !== D('privilege')).sort(), [D('read'), D('read-current-user-privilege-set')].sort());
      assert.match(text(book, D('sync-token'))!, /^http:\/\/localhost:8080\/ns\/sync\/\d+$/);
      assert.ok(book.missing.includes(clark(CS, 'me-card')) && book.missing.includes(clark(CS, 'push-transports')) && book.missing.includes(D('quota-used-bytes')));

      const ctag = byHref(assertShape(await req('PROPFIND', paths.book, { body: APPLE.ctag, depth: '0' })), paths.book);
      assert.equal(text(ctag, clark(CS, 'getctag')), text(ctag, D('sync-token')), 'the CTag is the sync token');

      const listing = assertShape(await req('PROPFIND', paths.book, { body: APPLE.listing, depth: '1' }));
      const cards = listing.filter((r) => r.href !== paths.book);
      assert.deepEqual(cards.map((r) => r.href).sort(), [paths.card(ada.accountId), paths.card(bob.accountId)].sort());
      for (const card of cards) {
        assert.match(text(card, D('getetag'))!, /^"[^"]+"$/, 'a strong, quoted ETag');
        assert.equal(text(card, D('getcontenttype')), 'text/vcard; charset=utf-8');
      }

      const hrefs = cards.map((r) => fill(APPLE.href, { href: r.href })).join('\n  ');
      const multiget = await req('REPORT', paths.book, { body: fill(APPLE.multiget, { hrefs }), depth: '0' });
      // Each CR of the vCard as &#13; (sabre-io/dav#36): the parser keeps the CRLF line ends GET serves.
      assert.ok(!multiget.text.includes('\r'), 'no raw CR inside the XML');
      const got = assertShape(multiget);
      const adaCard = byHref(got, paths.card(ada.accountId));
      assert.equal(text(adaCard, C('address-data')), (await req('GET', paths.card(ada.accountId))).text);
      const lines = vcardLines(text(adaCard, C('address-data'))!);
      assert.equal(lines[0], 'BEGIN:VCARD');
      assert.ok(lines.includes('VERSION:3.0'), 'vCard 3.0, as advertised');
      assert.ok(lines.some((l) => /^EMAIL.*:ada@example\.org$/.test(l)), lines.join('\n'));
      assert.equal(text(adaCard, D('getetag')), text(byHref(listing, paths.card(ada.accountId)), D('getetag')), 'the same tag in the listing and the multiget');

      const synced = await req('REPORT', paths.book, { body: fill(APPLE.sync, { token: '' }), depth: '0' });
      const first = readMultistatus(synced.text);
      assert.equal(first.responses.length, 2);
      assert.equal(first.syncToken, text(ctag, D('sync-token')));

      // macOS 10.13/10.14's bare UUID token: not ours; the client starts over (403 valid-sync-token).
      const bare = await req('REPORT', paths.book, { body: fill(APPLE.sync, { token: APPLE.bareUuidToken }), depth: '0' });
      assert.equal(bare.status, 403);
      assert.deepEqual(errorConditions(bare.text), [D('valid-sync-token')]);

      // iOS edits locally anyway: the upload is refused for good (403 need-privileges, never 401).
      const put = await req('PUT', paths.card(ada.accountId), { body: APPLE.vcard, headers: { 'content-type': 'text/vcard', 'if-match': text(adaCard, D('getetag'))! } });
      assert.equal(put.status, 403);
      assert.deepEqual(errorConditions(put.text), [D('need-privileges')]);
      const meCard = await req('PROPPATCH', paths.home, { body: fill(APPLE.meCard, { href: paths.card(ada.accountId) }) });
      assert.equal(meCard.status, 403);
      assert.deepEqual(errorConditions(meCard.text), [D('need-privileges')]);
      assert.match(meCard.text, /<D:write-properties\/>/);
    });

    it('Thunderbird: discovery from /dav/ and the well-known URI, fetch all, sync token, sync-collection with address-data', async () => {
      const detected = byHref(assertShape(await req('PROPFIND', '/dav/', { body: THUNDERBIRD.detect, depth: '0' })), '/dav/');
      assert.deepEqual(hrefsIn(detected.ok.get(D('current-user-principal'))), [paths.principal]);
      const wellKnown = await req('PROPFIND', '/.well-known/carddav', { body: THUNDERBIRD.wellKnown, depth: '0' });
      assert.equal(wellKnown.status, 301);
      assert.equal(wellKnown.headers.get('location'), `${PUBLIC_ORIGIN}/dav/`, 'absolute, from PUBLIC_ORIGIN');

      const principal = byHref(assertShape(await req('PROPFIND', paths.principal, { body: THUNDERBIRD.homeSet, depth: '0' })), paths.principal);
      assert.deepEqual(hrefsIn(principal.ok.get(C('addressbook-home-set'))), [paths.home]);
      const books = assertShape(await req('PROPFIND', paths.home, { body: THUNDERBIRD.books, depth: '1' }));
      const book = byHref(books, paths.book);
      // Thunderbird's readPrivs/writePrivs: readable, not writable, so the book is read-only.
      const privileges = namesIn(book.ok.get(D('current-user-privilege-set')));
      assert.ok(privileges.includes(D('read')));
      for (const write of ['write', 'write-properties', 'write-content', 'all']) assert.ok(!privileges.includes(D(write)));

      const all = assertShape(await req('PROPFIND', paths.book, { body: THUNDERBIRD.fetchAll, depth: '1' }));
      const cardHrefs = all.filter((r) => !namesIn(r.ok.get(D('resourcetype'))).includes(D('collection'))).map((r) => r.href);
      assert.equal(cardHrefs.length, 2);
      const hrefs = cardHrefs.map((href) => fill(THUNDERBIRD.href, { href })).join('\n');
      const got = assertShape(await req('REPORT', paths.book, { body: fill(THUNDERBIRD.multiget, { hrefs }), depth: '1' }));
      assert.equal(got.length, 2);
      for (const card of got) assert.equal(card.propstats[0]!.status, OK);

      const tokenAnswer = byHref(assertShape(await req('PROPFIND', paths.book, { body: THUNDERBIRD.syncToken, depth: '0' })), paths.book);
      const token = text(tokenAnswer, D('sync-token'))!;
      // Nothing changed: the same token back, no members.
      const quiet = readMultistatus((await req('REPORT', paths.book, { body: fill(THUNDERBIRD.sync, { token }), depth: '1' })).text);
      assert.deepEqual(quiet.responses, []);
      assert.equal(quiet.syncToken, token);

      // Ada changes her nickname: exactly her card, with its vCard, and a new token.
      const fields = (await s.get(ada, '/me/fields')).body.data as Array<{ id: string; type: string; version: number }>;
      const nickname = fields.find((f) => f.type === 'nickname')!;
      t.clock.advance(1000);
      const patched = await t.client.as(ada, 'PATCH', `/api/v1/me/fields/${nickname.id}`, { body: { value: 'Countess of Lovelace' }, headers: { 'if-match': `"${nickname.version}"` } });
      assert.equal(patched.status, 200);
      const changed = await req('REPORT', paths.book, { body: fill(THUNDERBIRD.sync, { token }), depth: '1' });
      const delta = readMultistatus(changed.text);
      assert.deepEqual(delta.responses.map((r) => r.href), [paths.card(ada.accountId)]);
      assert.equal(delta.responses[0]!.propstats[0]!.status, OK);
      assert.ok(vcardLines(text(delta.responses[0]!, C('address-data'))!).some((l) => l.includes('Countess of Lovelace')));
      assert.notEqual(delta.syncToken, token);
    });

    it('DAVx5 given only the host name: PROPFIND / leads to the principal and the home set', async () => {
      const res = await req('PROPFIND', '/', { body: DAVX5.baseUrl, depth: '0' });
      assert.equal(res.status, 207, res.text);
      const [root] = readMultistatus(res.text).responses;
      assert.equal(root!.href, '/');
      assert.deepEqual(hrefsIn(root!.ok.get(D('current-user-principal'))), [paths.principal]);
      assert.deepEqual(hrefsIn(root!.ok.get(C('addressbook-home-set'))), [paths.home]);
    });

    it('DAVx5: the base URL, OPTIONS addressbook, home set, collections with privileges, capabilities, sync-collection then multiget by ten, need-privileges on upload', async () => {
      const base = byHref(assertShape(await req('PROPFIND', '/dav/', { body: DAVX5.baseUrl, depth: '0' })), '/dav/');
      assert.deepEqual(hrefsIn(base.ok.get(D('current-user-principal'))), [paths.principal]);
      assert.deepEqual(hrefsIn(base.ok.get(C('addressbook-home-set'))), [paths.home]);
      // DavResourceFinder.providesService: the principal counts only if OPTIONS names addressbook.
      assert.match((await req('OPTIONS', paths.principal)).headers.get('dav') ?? '', /\baddressbook\b/);

      const homes = byHref(assertShape(await req('PROPFIND', paths.principal, { body: DAVX5.homeSets, depth: '0' })), paths.principal);
      assert.deepEqual(hrefsIn(homes.ok.get(C('addressbook-home-set'))), [paths.home]);
      assert.deepEqual(homes.missing, [D('group-membership')]);
      const collections = assertShape(await req('PROPFIND', paths.home, { body: DAVX5.collections, depth: '1' }));
      const book = byHref(collections, paths.book);
      // Without a privilege set DAVx5 assumes writable; with it, the book is read-only.
      assert.ok(book.ok.has(D('current-user-privilege-set')));
      assert.ok(!namesIn(book.ok.get(D('current-user-privilege-set'))).includes(D('write-content')));
      // Only 3.0 is offered: DAVx5 would switch to 4.0 were it.
      const data = book.ok.get(C('supported-address-data'))!;
      assert.match(data.toString(), /content-type="text\/vcard" version="3\.0"/);
      assert.doesNotMatch(data.toString(), /4\.0/);

      const caps = byHref(assertShape(await req('PROPFIND', paths.book, { body: DAVX5.capabilities, depth: '0' })), paths.book);
      assert.ok(namesIn(caps.ok.get(D('supported-report-set'))).includes(D('sync-collection')), 'sync-collection is offered, so DAVx5 uses it');
      assert.match(text(caps, C('max-resource-size'))!, /^\d+$/);

      const first = await req('REPORT', paths.book, { body: DAVX5.syncFirst, depth: '0' });
      const listed = readMultistatus(first.text);
      assert.equal(listed.responses.length, 2);
      for (const r of listed.responses) assert.ok(text(r, D('getetag')), 'DAVx5 fails a member without getetag');
      const hrefs = listed.responses.map((r) => fill(DAVX5.href, { href: r.href })).join('');
      const got = assertShape(await req('REPORT', paths.book, { body: fill(DAVX5.multiget, { hrefs }), depth: '0' }));
      assert.equal(got.length, 2);
      for (const r of got) {
        assert.ok(vcardLines(text(r, C('address-data'))!).includes('VERSION:3.0'));
        assert.equal(text(r, C('address-data')), (await req('GET', r.href)).text, 'the vCard read from the XML is the one GET serves, CRLF and all');
      }

      const quiet = readMultistatus((await req('REPORT', paths.book, { body: fill(DAVX5.sync, { token: listed.syncToken! }), depth: '0' })).text);
      assert.deepEqual(quiet.responses, []);
      assert.equal(quiet.syncToken, listed.syncToken);
      const unknown = await req('REPORT', paths.book, { body: fill(DAVX5.sync, { token: 'http://localhost:8080/ns/sync/999999999' }), depth: '0' });
      assert.equal(unknown.status, 403);
      assert.deepEqual(errorConditions(unknown.text), [D('valid-sync-token')]);

      // SyncManager.uploadDirty skips an upload refused with need-privileges (and a DELETE too).
      const put = await req('PUT', paths.card('new-contact'), { body: fill(DAVX5.vcard, { uid: 'new-contact' }), headers: { 'content-type': 'text/vcard; charset=utf-8', 'if-none-match': '*' } });
      assert.equal(put.status, 403);
      assert.deepEqual(errorConditions(put.text), [D('need-privileges')]);
      const del = await req('DELETE', paths.card(bob.accountId));
      assert.equal(del.status, 403);
      assert.match(del.text, /<D:unbind\/>/);
    });

    it('Evolution: OPTIONS on the book, CTag, etags, the VERSION+UID query, a text search, multiget and GET', async () => {
      const options = await req('OPTIONS', paths.book);
      assert.equal(options.status, 200);
      assert.match(options.headers.get('dav') ?? '', /\baddressbook\b/);
      // Evolution judges the book read-only from Allow when it cannot read privileges.
      assert.doesNotMatch(options.headers.get('allow') ?? '', /PUT|DELETE|PROPPATCH/);

      const ctag = byHref(assertShape(await req('PROPFIND', paths.book, { body: EVOLUTION.ctag, depth: '0' })), paths.book);
      assert.match(text(ctag, clark(CS, 'getctag'))!, /\/ns\/sync\/\d+$/);
      const etags = assertShape(await req('PROPFIND', paths.book, { body: EVOLUTION.etags, depth: '1' }));
      assert.equal(etags.length, 3);
      assert.deepEqual(byHref(etags, paths.book).missing, [D('getetag')]);

      const query = assertShape(await req('REPORT', paths.book, { body: EVOLUTION.query, depth: '1' }));
      assert.equal(query.length, 2);
      for (const r of query) {
        const lines = vcardLines(text(r, C('address-data'))!);
        assert.deepEqual(lines.map((l) => l.split(/[;:]/)[0]), ['BEGIN', 'VERSION', 'UID', 'END'], 'only the properties asked for');
      }

      const search = assertShape(await req('REPORT', paths.book, { body: fill(EVOLUTION.search, { text: 'BABBAGE' }), depth: '1' }));
      assert.deepEqual(search.map((r) => r.href), [paths.card(bob.accountId)], 'i;unicode-casemap matches regardless of case');
      const unsupported = await req('REPORT', paths.book, { body: EVOLUTION.search.replace('<C:text-match', '<C:param-filter name="TYPE"/><C:text-match').replace('{text}', 'x'), depth: '1' });
      assert.equal(unsupported.status, 403);
      assert.deepEqual(errorConditions(unsupported.text), [C('supported-filter')]);

      const hrefs = [paths.card(ada.accountId), paths.card('acc_nobodyxxxxxxxxxxxxxxxx')].map((href) => fill(EVOLUTION.href, { href })).join('');
      const got = assertShape(await req('REPORT', paths.book, { body: fill(EVOLUTION.multiget, { hrefs }), depth: '1' }));
      assert.equal(byHref(got, paths.card(ada.accountId)).propstats[0]!.status, OK);
      assert.equal(byHref(got, paths.card('acc_nobodyxxxxxxxxxxxxxxxx')).status, NOT_FOUND);

      const card = await req('GET', paths.card(ada.accountId));
      assert.equal(card.status, 200);
      assert.equal(card.headers.get('content-type'), 'text/vcard; charset=utf-8');
      const etag = card.headers.get('etag')!;
      assert.match(etag, /^"[^"]+"$/);
      assert.equal(etag, text(byHref(etags, paths.card(ada.accountId)), D('getetag')));
      assert.equal((await req('GET', paths.card(ada.accountId), { headers: { 'if-none-match': etag } })).status, 304);
      const head = await req('HEAD', paths.card(ada.accountId));
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('etag'), etag);
      assert.equal(head.text, '');
    });
  });
}
