// Sync tokens on the card-change log (decision 180): after each kind of change, one
// sync-collection from the previous token answers exactly the card it touched (200 with its new
// tag, or 404 when it left the book), nothing else; truncation, foreign tokens, and on
// PostgreSQL a change that commits after a later one was already read is never missed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import type { Device } from '../helpers/client.js';
import { API, startSocialApp } from '../helpers/social.js';
import type { Social } from '../helpers/social.js';
import { stepUp, STEP_UP_HEADER } from '../helpers/step-up.js';
import { CARDDAV, DAV, bookPaths, clark, dav, davLogin, errorConditions, readMultistatus, syncBody, vcardLines } from '../helpers/address-book.js';
import type { DavLogin } from '../helpers/address-book.js';

const D = (local: string) => clark(DAV, local);
const C = (local: string) => clark(CARDDAV, local);

interface Owner {
  device: Device;
  profile: string;
  other: string;
  nickname: { id: string; version: number };
  email: string;
  contact: string;
}

for (const backend of backends) {
  describe(`address book: sync-collection from the card-change log [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: Social;

    before(async () => ({ t, s } = await startSocialApp(backend)));
    after(() => t.close());

    /** An owner with a nickname and an email on profile "Friends" (and an empty "Work"), followed by `reader`. */
    async function owner(reader: Device, name: string): Promise<Owner> {
      const device = await s.person(name);
      const nickname = await s.field(device, { type: 'nickname', value: `${name} nick` });
      const email = await s.field(device, { type: 'email', value: `${name}@example.org` });
      const profile = (await s.profile(device, 'Friends')).id;
      const other = (await s.profile(device, 'Work')).id;
      await s.expose(device, profile, nickname.id);
      await s.expose(device, profile, email.id);
      const contact = await s.connect(reader, device, profile);
      return { device, profile, other, nickname: { id: nickname.id, version: 1 }, email: email.id, contact };
    }

    function client(login: DavLogin) {
      const paths = bookPaths(login.accountId);
      let token = '';
      return {
        paths,
        get token() {
          return token;
        },
        /** One sync from the last token (getetag and address-data); the token moves on. */
        async sync(extra = ''): Promise<{ status: number; changed: Map<string, { status: string; etag?: string; vcard?: string }>; truncated: boolean; text: string }> {
          const res = await dav(t.baseUrl, login, 'REPORT', paths.book, { body: syncBody(token, undefined, extra), depth: '1' });
          if (res.status !== 207) return { status: res.status, changed: new Map(), truncated: false, text: res.text };
          const read = readMultistatus(res.text);
          token = read.syncToken!;
          const changed = new Map<string, { status: string; etag?: string; vcard?: string }>();
          let truncated = false;
          for (const r of read.responses) {
            if (r.href === paths.book) {
              assert.equal(r.status, 'HTTP/1.1 507 Insufficient Storage');
              assert.ok(r.error, 'the truncation names number-of-matches-within-limits');
              truncated = true;
              continue;
            }
            const person = /\/following\/(.+)\.vcf$/.exec(r.href)![1]!;
            if (r.status) changed.set(person, { status: r.status });
            else changed.set(person, { status: r.propstats[0]!.status, etag: r.ok.get(D('getetag'))?.textContent ?? undefined, vcard: r.ok.get(C('address-data'))?.textContent ?? undefined });
          }
          return { status: res.status, changed, truncated, text: res.text };
        },
      };
    }

    async function editNickname(o: Owner, value: string) {
      t.clock.advance(1000);
      const res = await t.client.as(o.device, 'PATCH', `${API}/me/fields/${o.nickname.id}`, { body: { value }, headers: { 'if-match': `"${o.nickname.version}"` } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      o.nickname.version = res.body.version;
    }

    it('each change answers exactly its card once: an edit, an exposure, a move, a revoke, an unsubscription, an approval, a share link', async () => {
      const reader = await s.person('reader');
      const [a, b, c] = [await owner(reader, 'ann'), await owner(reader, 'ben'), await owner(reader, 'cat')];
      const book = client(await davLogin(t, reader));
      const first = await book.sync();
      assert.deepEqual([...first.changed.keys()].sort(), [a, b, c].map((o) => o.device.accountId).sort());
      for (const entry of first.changed.values()) assert.equal(entry.status, 'HTTP/1.1 200 OK');
      assert.equal((await book.sync()).changed.size, 0, 'nothing changed: nothing answered');

      // An edit: that card, with its new vCard and a new tag.
      const before = first.changed.get(a.device.accountId)!;
      await editNickname(a, 'ann renamed');
      let delta = await book.sync();
      assert.deepEqual([...delta.changed.keys()], [a.device.accountId]);
      assert.notEqual(delta.changed.get(a.device.accountId)!.etag, before.etag);
      assert.ok(vcardLines(delta.changed.get(a.device.accountId)!.vcard!).some((l) => l.includes('ann renamed')));

      // An edit of a field no profile of theirs shows the reader: nothing.
      const unseen = await s.field(b.device, { type: 'nickname', value: 'private' });
      await s.expose(b.device, b.other, unseen.id);
      assert.equal((await book.sync()).changed.size, 0);

      // The owner hides a field from the reader's profile: that card, without the field.
      t.clock.advance(1000);
      assert.equal((await t.client.as(b.device, 'DELETE', `${API}/profiles/${b.profile}/exposures/${b.email}`)).status, 204);
      delta = await book.sync();
      assert.deepEqual([...delta.changed.keys()], [b.device.accountId]);
      assert.ok(!vcardLines(delta.changed.get(b.device.accountId)!.vcard!).some((l) => l.includes('ben@example.org')));

      // A move onto another profile: that card.
      t.clock.advance(1000);
      assert.equal((await s.post(c.device, `/subscriptions/${c.contact}/move`, { profile_id: c.other })).status, 200);
      delta = await book.sync();
      assert.deepEqual([...delta.changed.keys()], [c.device.accountId]);
      assert.equal(delta.changed.get(c.device.accountId)!.status, 'HTTP/1.1 200 OK');

      // A revoke: a 404 member, nothing else in it.
      assert.equal((await s.post(a.device, `/subscriptions/${a.contact}/revoke`, {})).status, 200);
      delta = await book.sync();
      assert.deepEqual([...delta.changed.entries()], [[a.device.accountId, { status: 'HTTP/1.1 404 Not Found' }]]);
      assert.match(delta.text, /<D:response><D:href>[^<]+<\/D:href><D:status>HTTP\/1\.1 404 Not Found<\/D:status><\/D:response>/);

      // The reader unsubscribes: a 404 member.
      assert.equal((await t.client.as(reader, 'DELETE', `${API}/contacts/${b.contact}`)).status, 204);
      delta = await book.sync();
      assert.deepEqual([...delta.changed.entries()], [[b.device.accountId, { status: 'HTTP/1.1 404 Not Found' }]]);

      // A new approval, and a share link that approves at once: each comes in.
      const d = await owner(reader, 'dan');
      delta = await book.sync();
      assert.deepEqual([...delta.changed.keys()], [d.device.accountId]);
      const e = await s.person('eve');
      const profile = (await s.profile(e, 'Public-ish')).id;
      const link = (await s.post(e, '/share-links', { profile_id: profile, auto_approve: true })).body;
      assert.equal((await s.post(reader, '/share-links/redeem', { token: link.token })).status, 201);
      delta = await book.sync();
      assert.deepEqual([...delta.changed.keys()], [e.accountId]);
      assert.equal(delta.changed.get(e.accountId)!.status, 'HTTP/1.1 200 OK');
    });

    it('the owner deleted, restored, locked and unlocked; a profile deleted with move_to: each one sync', async () => {
      const reader = await s.person('reader');
      const [a, b] = [await owner(reader, 'fay'), await owner(reader, 'gus')];
      const book = client(await davLogin(t, reader));
      await book.sync();

      const deleted = await t.client.as(a.device, 'DELETE', `${API}/account`, { headers: { [STEP_UP_HEADER]: await stepUp(t.client, a.device) } });
      assert.equal(deleted.status, 202, JSON.stringify(deleted.body));
      let delta = await book.sync();
      assert.deepEqual([...delta.changed.entries()], [[a.device.accountId, { status: 'HTTP/1.1 404 Not Found' }]]);
      assert.equal((await t.client.as(a.device, 'POST', `${API}/account/undelete`)).status, 200);
      delta = await book.sync();
      assert.deepEqual([...delta.changed.keys()], [a.device.accountId]);
      assert.equal(delta.changed.get(a.device.accountId)!.status, 'HTTP/1.1 200 OK');

      await t.services.locks.lock(b.device.username, 'a test of the address book');
      delta = await book.sync();
      assert.deepEqual([...delta.changed.entries()], [[b.device.accountId, { status: 'HTTP/1.1 404 Not Found' }]]);
      await t.services.locks.unlock(b.device.username);
      delta = await book.sync();
      assert.deepEqual([...delta.changed.keys()], [b.device.accountId]);

      const profile = (await s.get(a.device, `/profiles/${a.profile}`)).body;
      t.clock.advance(1000);
      const removed = await t.client.as(a.device, 'DELETE', `${API}/profiles/${a.profile}?move_to=${a.other}`, { headers: { 'if-match': `"${profile.version}"` } });
      assert.equal(removed.status, 204, JSON.stringify(removed.body));
      delta = await book.sync();
      assert.deepEqual([...delta.changed.keys()], [a.device.accountId]);
      assert.ok(!vcardLines(delta.changed.get(a.device.accountId)!.vcard!).some((l) => l.includes('fay nick')), 'the Work profile shows nothing');
    });

    it('a limit truncates with a 507 and the token of the last change sent; the rest follows; a first sync beyond a limit is refused', async () => {
      const reader = await s.person('reader');
      const owners = [await owner(reader, 'hal'), await owner(reader, 'ivy'), await owner(reader, 'jon')];
      const login = await davLogin(t, reader);
      const book = client(login);
      const refused = await dav(t.baseUrl, login, 'REPORT', book.paths.book, { body: syncBody('', undefined, '<d:limit><d:nresults>2</d:nresults></d:limit>'), depth: '1' });
      assert.equal(refused.status, 403);
      assert.deepEqual(errorConditions(refused.text), [D('number-of-matches-within-limits')]);
      assert.equal((await book.sync('<d:limit><d:nresults>3</d:nresults></d:limit>')).changed.size, 3);

      for (const o of owners) await editNickname(o, `${o.device.username} again`);
      const seen = new Set<string>();
      let page = await book.sync('<d:limit><d:nresults>2</d:nresults></d:limit>');
      assert.ok(page.truncated);
      assert.equal(page.changed.size, 2);
      for (const person of page.changed.keys()) seen.add(person);
      page = await book.sync('<d:limit><d:nresults>2</d:nresults></d:limit>');
      assert.ok(!page.truncated);
      for (const person of page.changed.keys()) seen.add(person);
      assert.deepEqual([...seen].sort(), owners.map((o) => o.device.accountId).sort());
      assert.equal((await book.sync()).changed.size, 0);
    });

    it('far behind (more changes of others since the token than a stretch is read for) and near: the same answer; the CTag moves only with the book', async () => {
      const reader = await s.person('reader');
      const [a, b] = [await owner(reader, 'nia'), await owner(reader, 'oto')];
      const login = await davLogin(t, reader);
      const book = client(login);
      await book.sync();
      const ctag = async () => {
        const res = await dav(t.baseUrl, login, 'PROPFIND', book.paths.book, { body: '<d:propfind xmlns:d="DAV:" xmlns:cs="http://calendarserver.org/ns/"><d:prop><cs:getctag/></d:prop></d:propfind>', depth: '0' });
        return readMultistatus(res.text).responses[0]!.ok.get('{http://calendarserver.org/ns/}getctag')!.textContent!;
      };
      const others = async (rows: number) =>
        t.store.transaction((tx) => t.services.cardChanges.cardsChanged(tx, { accountId: 'acc_somebodyelsexxxxxxxxx', profileIds: Array.from({ length: rows }, (_, i) => `prf_elsewhere${i}`) }));
      const quiet = await ctag();
      assert.equal(quiet, book.token, 'the CTag is the token of the last sync');
      await others(10);
      assert.equal(await ctag(), quiet, 'changes of others move no CTag (a short stretch)');
      await others(2500);
      assert.equal(await ctag(), quiet, 'nor many (read profile by profile)');
      assert.equal((await book.sync()).changed.size, 0);

      await editNickname(a, 'nia near');
      const near = await ctag();
      assert.notEqual(near, quiet);
      assert.deepEqual([...(await book.sync()).changed.keys()], [a.device.accountId]);
      assert.equal(book.token, near);

      await editNickname(b, 'oto far');
      await others(2500);
      const far = await ctag();
      assert.notEqual(far, near);
      assert.deepEqual([...(await book.sync()).changed.keys()], [b.device.accountId]);
      assert.equal(book.token, far);
    });

    it('a token is a position of this log: another server\'s, a malformed one, or one past the log\'s head is 403 valid-sync-token', async () => {
      const reader = await s.person('reader');
      await owner(reader, 'kim');
      const login = await davLogin(t, reader);
      const paths = bookPaths(reader.accountId);
      const token = readMultistatus((await dav(t.baseUrl, login, 'REPORT', paths.book, { body: syncBody(''), depth: '0' })).text).syncToken!;
      for (const bad of ['http://elsewhere.example/ns/sync/1', `${token}x`, 'urn:uuid:00000000-0000-0000-0000-000000000000', 'http://localhost:8080/ns/sync/999999999999', 'http://localhost:8080/ns/sync/-1']) {
        const res = await dav(t.baseUrl, login, 'REPORT', paths.book, { body: syncBody(bad), depth: '0' });
        assert.equal(res.status, 403, bad);
        assert.deepEqual(errorConditions(res.text), [D('valid-sync-token')]);
      }
      const infinity = await dav(t.baseUrl, login, 'REPORT', paths.book, { body: syncBody(token), depth: 'infinity' });
      assert.equal(infinity.status, 400);
    });

    if (backend.name === 'postgres') {
      it('a change that commits after a later one was read is still answered: positions are handed out after commit (decision 342)', async () => {
        const reader = await s.person('reader');
        const [a, b] = [await owner(reader, 'lea'), await owner(reader, 'max')];
        const book = client(await davLogin(t, reader));
        await book.sync();
        // A's change is written and held uncommitted…
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let appended!: () => void;
        const inside = new Promise<void>((resolve) => (appended = resolve));
        const first = t.store.transaction(async (tx) => {
          await t.services.cardChanges.cardsChanged(tx, { accountId: a.device.accountId, profileIds: [a.profile] });
          appended();
          await held;
        });
        await inside;
        // …while B edits through the API: it waits for nobody, and its position comes first.
        await editNickname(b, 'max later');
        assert.deepEqual([...(await book.sync()).changed.keys()], [b.device.accountId]);
        // A commits after that token was handed out: its position is after it, so the next sync answers it.
        release();
        await first;
        assert.deepEqual([...(await book.sync()).changed.keys()], [a.device.accountId]);
        assert.equal((await t.store.handle.db.selectFrom('card_change_pending').select('id').execute()).length, 0, 'nothing left without a position');
      });
    }
  });
}
