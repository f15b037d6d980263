// Who may read an address book, and what a DAV request may not do: every write is 403
// need-privileges; a revoked password is refused at once; one account's password reads no
// other's book and learns nothing of it; DOCTYPEs, oversized and malformed bodies are refused;
// every refusal is in DAV's shape, never problem+json.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import type { Device } from '../helpers/client.js';
import { API, social, startSocialApp } from '../helpers/social.js';
import type { Social } from '../helpers/social.js';
import { stepUp, STEP_UP_HEADER } from '../helpers/step-up.js';
import { CARDDAV, DAV, bookPaths, clark, dav, davLogin, errorConditions, readMultistatus } from '../helpers/address-book.js';
import type { DavLogin } from '../helpers/address-book.js';

const D = (local: string) => clark(DAV, local);
const PROPFIND = '<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:displayname/><d:getetag/></d:prop></d:propfind>';

for (const backend of backends) {
  describe(`address book: access and refusals [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: Social;
    let owner: Device;
    let reader: Device;
    let other: Device;
    let login: DavLogin;
    let otherLogin: DavLogin;
    const req = (method: string, path: string, options: Parameters<typeof dav>[4] = {}) => dav(t.baseUrl, login, method, path, options);

    before(async () => {
      ({ t, s } = await startSocialApp(backend));
      owner = await s.person('owner');
      reader = await s.person('reader');
      other = await s.person('other');
      const nick = await s.field(owner, { type: 'nickname', value: 'Ozzy' });
      const profile = await s.profile(owner, 'All');
      await s.expose(owner, profile.id, nick.id);
      await s.connect(reader, owner, profile.id);
      await s.connect(other, owner, profile.id);
      login = await davLogin(t, reader);
      otherLogin = await davLogin(t, other);
    });
    after(() => t.close());

    it('every write, on every resource, is 403 need-privileges naming the privilege, with a valid password; 401 without one', async () => {
      const paths = bookPaths(reader.accountId);
      const writes: Array<[string, string]> = [
        ['PUT', 'write-content'], ['POST', 'write-content'], ['PATCH', 'write-content'], ['LOCK', 'write-content'], ['UNLOCK', 'unlock'],
        ['PROPPATCH', 'write-properties'], ['DELETE', 'unbind'], ['MOVE', 'unbind'], ['MKCOL', 'bind'], ['COPY', 'bind'], ['ACL', 'write-acl'], ['MKCALENDAR', 'bind'],
      ];
      for (const target of ['/dav/', paths.principal, paths.home, paths.book, paths.card(owner.accountId), paths.card('acc_notfollowedxxxxxxxxxx')]) {
        for (const [method, privilege] of writes) {
          const res = await req(method, target, { body: 'BEGIN:VCARD\r\nEND:VCARD\r\n', headers: { 'content-type': 'text/vcard', destination: `${t.baseUrl}${paths.book}copy.vcf` } });
          assert.equal(res.status, 403, `${method} ${target}: ${res.text}`);
          assert.equal(res.headers.get('content-type'), 'application/xml; charset=utf-8');
          assert.deepEqual(errorConditions(res.text), [D('need-privileges')], `${method} ${target}`);
          assert.match(res.text, new RegExp(`<D:privilege><D:${privilege}/></D:privilege>`), `${method} ${target}`);
          const anonymous = await dav(t.baseUrl, null, method, target);
          assert.equal(anonymous.status, 401, `${method} ${target} without a password`);
        }
      }
      const search = await req('SEARCH', paths.book);
      assert.equal(search.status, 405);
      assert.equal(search.headers.get('allow'), 'OPTIONS, GET, HEAD, PROPFIND, REPORT');
      // Nothing was written: the card is as it was.
      const card = await req('GET', paths.card(owner.accountId));
      assert.equal(card.status, 200);
      assert.match(card.text, /Ozzy/);
    });

    it('a password is checked on every request: wrong, unknown, revoked (at once), of a deleted account: 401 with the Basic challenge', async () => {
      const paths = bookPaths(reader.accountId);
      const mine = await davLogin(t, reader, 'Laptop');
      assert.equal((await dav(t.baseUrl, mine, 'PROPFIND', paths.book, { body: PROPFIND, depth: '0' })).status, 207);
      const refusals = [
        await dav(t.baseUrl, { ...mine, password: `${mine.password.slice(0, -1)}${mine.password.endsWith('A') ? 'B' : 'A'}` }, 'PROPFIND', paths.book, { body: PROPFIND }),
        await dav(t.baseUrl, { ...mine, username: other.username }, 'PROPFIND', paths.book, { body: PROPFIND }),
        await dav(t.baseUrl, { ...mine, password: 'not-a-password' }, 'PROPFIND', paths.book, { body: PROPFIND }),
        await dav(t.baseUrl, null, 'PROPFIND', paths.book, { body: PROPFIND, headers: { authorization: 'Bearer abc' } }),
      ];
      assert.equal((await t.client.as(reader, 'DELETE', `${API}/dav-tokens/${mine.tokenId}`)).status, 204);
      refusals.push(await dav(t.baseUrl, mine, 'PROPFIND', paths.book, { body: PROPFIND }), await dav(t.baseUrl, mine, 'GET', paths.card(owner.accountId)));
      for (const res of refusals) {
        assert.equal(res.status, 401, res.text);
        assert.equal(res.headers.get('www-authenticate'), 'Basic realm="VID", charset="UTF-8"');
        assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
      }
      // An account deleted (restorably) reads nothing with its passwords; restored, they work again.
      const leaving = await s.person('leaving');
      const leavingLogin = await davLogin(t, leaving);
      const leavingPaths = bookPaths(leaving.accountId);
      assert.equal((await t.client.as(leaving, 'DELETE', `${API}/account`, { headers: { [STEP_UP_HEADER]: await stepUp(t.client, leaving) } })).status, 202);
      assert.equal((await dav(t.baseUrl, leavingLogin, 'PROPFIND', leavingPaths.book, { body: PROPFIND })).status, 401);
      assert.equal((await t.client.as(leaving, 'POST', `${API}/account/undelete`)).status, 200);
      assert.equal((await dav(t.baseUrl, leavingLogin, 'PROPFIND', leavingPaths.book, { body: PROPFIND, depth: '0' })).status, 207);
    });

    it("one account's password reads no other's book, and another account's paths answer exactly as nothing would", async () => {
      const theirs = bookPaths(other.accountId);
      const nobody = bookPaths('acc_nobodyhasthisidxxxxx');
      for (const [path, none] of [[theirs.principal, nobody.principal], [theirs.home, nobody.home], [theirs.book, nobody.book], [theirs.card(owner.accountId), nobody.card(owner.accountId)]] as const) {
        for (const method of ['PROPFIND', 'GET', 'REPORT', 'OPTIONS', 'PUT']) {
          const body = method === 'REPORT' ? `<c:addressbook-multiget xmlns:d="DAV:" xmlns:c="${CARDDAV}"><d:prop><d:getetag/></d:prop><d:href>${theirs.card(owner.accountId)}</d:href></c:addressbook-multiget>` : method === 'GET' ? undefined : PROPFIND;
          const [a, b] = [await req(method, path, { body, depth: '0' }), await req(method, none, { body, depth: '0' })];
          assert.equal(a.status, 404, `${method} ${path}`);
          assert.equal(b.status, a.status);
          assert.equal(a.text, b.text, 'no difference between an existing account and none');
        }
      }
      // Their password reads their own book (the same owner's card, with its own tag space).
      const own = readMultistatus((await dav(t.baseUrl, otherLogin, 'PROPFIND', theirs.book, { body: PROPFIND, depth: '1' })).text);
      assert.deepEqual(own.responses.map((r) => r.href).sort(), [theirs.book, theirs.card(owner.accountId)].sort());
      // A multiget in my book naming their card's href: not found.
      const mine = bookPaths(reader.accountId);
      const crossed = await req('REPORT', mine.book, { body: `<c:addressbook-multiget xmlns:d="DAV:" xmlns:c="${CARDDAV}"><d:prop><d:getetag/></d:prop><d:href>${theirs.card(owner.accountId)}</d:href></c:addressbook-multiget>`, depth: '0' });
      assert.deepEqual(readMultistatus(crossed.text).responses.map((r) => r.status), ['HTTP/1.1 404 Not Found']);
      // The collections above list only the caller's own.
      const principals = readMultistatus((await req('PROPFIND', '/dav/principals/', { body: PROPFIND, depth: '1' })).text);
      assert.deepEqual(principals.responses.map((r) => r.href), ['/dav/principals/', mine.principal]);
      const homes = readMultistatus((await req('PROPFIND', '/dav/addressbooks/', { body: PROPFIND, depth: '1' })).text);
      assert.deepEqual(homes.responses.map((r) => r.href), ['/dav/addressbooks/', mine.home]);
    });

    it('bodies: a DOCTYPE, an oversized body, malformed XML, not UTF-8, the wrong root: refused, in plain text; any content type is read as XML', async () => {
      const book = bookPaths(reader.accountId).book;
      const doctype = `<?xml version="1.0"?><!DOCTYPE d:propfind [<!ENTITY boom "boom">]><d:propfind xmlns:d="DAV:"><d:prop><d:displayname/></d:prop></d:propfind>`;
      const refused = [
        await req('PROPFIND', book, { body: doctype, depth: '0' }),
        await req('REPORT', book, { body: doctype.replace('d:propfind', 'd:sync-collection'), depth: '0' }),
        await req('PROPFIND', book, { body: '<d:propfind xmlns:d="DAV:"><d:prop>', depth: '0' }),
        await req('PROPFIND', book, { body: Buffer.from([0x3c, 0x61, 0xff, 0xfe, 0x3e]), depth: '0' }),
        await req('PROPFIND', book, { body: '<d:multistatus xmlns:d="DAV:"/>', depth: '0' }),
        await req('PROPFIND', book, { body: '<propfind><prop><displayname/></prop></propfind>', depth: '0' }),
        await req('REPORT', book, { body: '', depth: '0' }),
      ];
      for (const res of refused) {
        assert.equal(res.status, 400, res.text);
        assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
      }
      const big = `<d:propfind xmlns:d="DAV:"><d:prop>${'<d:displayname/>'.repeat(5000)}</d:prop></d:propfind>`;
      assert.ok(big.length > 64 * 1024);
      const tooLarge = await req('PROPFIND', book, { body: big, depth: '0' });
      assert.equal(tooLarge.status, 413);
      assert.match(tooLarge.headers.get('content-type') ?? '', /^text\/plain/);
      const asJson = await req('PROPFIND', book, { body: PROPFIND, depth: '0', headers: { 'content-type': 'application/json' } });
      assert.equal(asJson.status, 207, 'no JSON body parser under /dav/');
      const noType = await fetch(`${t.baseUrl}${book}`, { method: 'PROPFIND', headers: { authorization: `Basic ${Buffer.from(`${login.username}:${login.password}`).toString('base64')}`, depth: '0' }, body: Buffer.from(PROPFIND) });
      assert.equal(noType.status, 207);
    });

    it('Depth infinity, unknown reports, reports off the book and vCard 4.0 are refused with their preconditions', async () => {
      const paths = bookPaths(reader.accountId);
      const infinity = await req('PROPFIND', paths.book, { body: PROPFIND, depth: 'infinity' });
      assert.equal(infinity.status, 403);
      assert.deepEqual(errorConditions(infinity.text), [D('propfind-finite-depth')]);
      const expand = await req('REPORT', paths.principal, { body: '<d:expand-property xmlns:d="DAV:"><d:property name="owner"/></d:expand-property>', depth: '0' });
      assert.equal(expand.status, 403);
      assert.deepEqual(errorConditions(expand.text), [D('supported-report')]);
      const offBook = await req('REPORT', paths.home, { body: `<d:sync-collection xmlns:d="DAV:"><d:sync-token/><d:prop><d:getetag/></d:prop></d:sync-collection>`, depth: '0' });
      assert.equal(offBook.status, 403);
      assert.deepEqual(errorConditions(offBook.text), [D('supported-report')]);
      const v4 = await req('REPORT', paths.book, { body: `<c:addressbook-query xmlns:d="DAV:" xmlns:c="${CARDDAV}"><d:prop><c:address-data content-type="text/vcard" version="4.0"/></d:prop></c:addressbook-query>`, depth: '1' });
      assert.equal(v4.status, 403);
      assert.deepEqual(errorConditions(v4.text), [clark(CARDDAV, 'supported-address-data')]);
    });
  });

  describe(`address book: failed passwords are throttled [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => (t = await startTestApp(backend, { AUTH_FAILURES_PER_CLIENT_PER_MIN: '3' })));
    after(() => t.close());

    it('past the limit of failures: 429 with Retry-After, in plain text', async () => {
      const s = social(t);
      const reader = await s.person('throttled');
      const login = await davLogin(t, reader);
      const paths = bookPaths(reader.accountId);
      let last;
      for (let i = 0; i < 6; i++) last = await dav(t.baseUrl, { ...login, password: `vidcd_${'x'.repeat(10)}` }, 'PROPFIND', paths.book, { body: PROPFIND });
      assert.equal(last!.status, 429);
      assert.match(last!.headers.get('retry-after') ?? '', /^\d+$/);
      assert.match(last!.headers.get('content-type') ?? '', /^text\/plain/);
    });
  });
}
