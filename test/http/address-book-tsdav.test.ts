// The address book through tsdav, a CardDAV client library: discovery from the server URL a
// person types, the address books, the cards (query then multiget), a multiget of our own, and
// sync-collection with Basic auth; after one owner edits, a sync returns only that card.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDAVClient } from 'tsdav';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { API, startSocialApp } from '../helpers/social.js';
import type { Social } from '../helpers/social.js';
import { bookPaths, davLogin, vcardLines } from '../helpers/address-book.js';

for (const backend of backends) {
  describe(`address book: tsdav [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: Social;
    before(async () => ({ t, s } = await startSocialApp(backend)));
    after(() => t.close());

    it('discovers the book, fetches its cards, multigets, and syncs only what changed', async () => {
      const reader = await s.person('reader');
      const owners = [];
      for (const name of ['nora', 'otto']) {
        const owner = await s.person(name);
        const nickname = await s.field(owner, { type: 'nickname', value: `${name} the first` });
        const profile = await s.profile(owner, 'Friends');
        await s.expose(owner, profile.id, nickname.id);
        await s.connect(reader, owner, profile.id);
        owners.push({ owner, nickname });
      }
      const login = await davLogin(t, reader);
      const paths = bookPaths(reader.accountId);

      const client = await createDAVClient({
        serverUrl: `${t.baseUrl}/`,
        credentials: { username: login.username, password: login.password },
        authMethod: 'Basic',
        defaultAccountType: 'carddav',
      });
      const books = await client.fetchAddressBooks();
      assert.equal(books.length, 1);
      const book = books[0]!;
      assert.equal(new URL(book.url).pathname, paths.book);
      assert.equal(book.displayName, 'People I follow');
      assert.ok(book.syncToken);
      assert.equal(book.ctag, book.syncToken);
      assert.ok((book.reports as string[]).includes('syncCollection'), JSON.stringify(book.reports));

      const cards = await client.fetchVCards({ addressBook: book });
      assert.deepEqual(cards.map((c) => new URL(c.url).pathname).sort(), owners.map((o) => paths.card(o.owner.accountId)).sort());
      for (const card of cards) {
        assert.match(card.etag!, /^"[^"]+"$/);
        assert.ok(vcardLines(card.data).includes('VERSION:3.0'));
      }

      const [nora] = owners;
      const got = await client.addressBookMultiGet({
        url: book.url,
        props: { 'd:getetag': {}, 'card:address-data': {} },
        objectUrls: [paths.card(nora!.owner.accountId)],
        depth: '1',
      });
      assert.equal(got.length, 1);
      assert.equal(got[0]!.href, paths.card(nora!.owner.accountId));
      assert.ok(got[0]!.ok, JSON.stringify(got[0]));
      const data = got[0]!.props!.addressData;
      const vcard: string = typeof data === 'string' ? data : (data?._cdata ?? data?._text ?? '');
      assert.ok(vcardLines(vcard).some((l) => l.includes('nora the first')), JSON.stringify(got[0]));

      const quiet = await client.syncCollection({ url: book.url, props: { 'd:getetag': {} }, syncLevel: 1, syncToken: book.syncToken });
      assert.deepEqual(quiet.filter((r) => r.href), []);

      t.clock.advance(1000);
      const edited = await t.client.as(nora!.owner, 'PATCH', `${API}/me/fields/${nora!.nickname.id}`, { body: { value: 'nora the second' }, headers: { 'if-match': '"1"' } });
      assert.equal(edited.status, 200);
      const changed = await client.syncCollection({ url: book.url, props: { 'd:getetag': {} }, syncLevel: 1, syncToken: book.syncToken });
      const members = changed.filter((r) => r.href);
      assert.deepEqual(members.map((r) => r.href), [paths.card(nora!.owner.accountId)]);
      assert.ok(members[0]!.ok, JSON.stringify(members[0]));
      assert.notEqual(members[0]!.props!.getetag, cards.find((c) => c.url.endsWith(`${nora!.owner.accountId}.vcf`))!.etag);
    });
  });
}
