// The cards right on every phone (issue 35): what lands in a phone's Contacts through /dav/, as
// the clients that found each flaw read it. A person with no name field still has a name in N
// (PRODUCT §6); a vCard inside an XML answer keeps its CRLF (&#13;, sabre-io/dav#36); an
// extension is a dial string (decision 310); several notes are one NOTE; every card has
// DAV:getcontentlength (RFC 4918 §15.4, cadaver); the well-known redirect is absolute; PROPFIND /
// finds the book from a bare host name; npm `dav` sees one book, not the home as a second; a
// photo is inline and moves the card's tag and the book's token. Then /dav/'s limits: requests
// per password, the account's quota, and failed passwords that never lock the right one out
// (decision 310). One server per backend for the cards, one for the limits.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
// @ts-expect-error: the npm `dav` client ships no types; only createAccount is used.
import davClient from 'dav';
import { PUBLIC_ORIGIN, startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import type { Device } from '../helpers/client.js';
import { upload } from '../helpers/photos.js';
import { API, social, startSocialApp } from '../helpers/social.js';
import type { Social } from '../helpers/social.js';
import { CARDDAV, DAV, bookPaths, clark, dav, davLogin, hrefsIn, readMultistatus, syncBody, vcardLines } from '../helpers/address-book.js';
import type { DavLogin } from '../helpers/address-book.js';
import { DAVX5, fill } from '../fixtures/carddav-requests.js';

const run = promisify(execFile);
/** Debian's binaries, where they are installed: a suite that needs one skips without it. */
const installed = (name: string) => (existsSync(`/usr/bin/${name}`) ? false : `${name} is not installed (Debian package ${name})`);
const unfold = (text: string) => text.replace(/\r?\n[ \t]/g, '');

const D = (local: string) => clark(DAV, local);
const C = (local: string) => clark(CARDDAV, local);
/** What cadaver's `ls` asks of every member (its fetch_resource_list). */
const CADAVER_LS = '<?xml version="1.0" encoding="utf-8"?><propfind xmlns="DAV:"><prop><getcontentlength xmlns="DAV:"/><getlastmodified xmlns="DAV:"/><executable xmlns="http://apache.org/dav/props/"/><resourcetype xmlns="DAV:"/><checked-in xmlns="DAV:"/><checked-out xmlns="DAV:"/></prop></propfind>';
const MULTIGET = (hrefs: string[]) =>
  `<?xml version="1.0" encoding="utf-8"?><C:addressbook-multiget xmlns:D="DAV:" xmlns:C="${CARDDAV}"><D:prop><D:getetag/><C:address-data/></D:prop>${hrefs.map((h) => `<D:href>${h}</D:href>`).join('')}</C:addressbook-multiget>`;

for (const backend of backends) {
  describe(`address book: the cards right on every phone [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: Social;
    let plain: Device;
    let bare: Device;
    let reader: Device;
    let login: DavLogin;
    let paths: ReturnType<typeof bookPaths>;
    let plainContact: string;
    let plainProfile: string;
    const req = (method: string, path: string, options: Parameters<typeof dav>[4] = {}) => dav(t.baseUrl, login, method, path, options);
    const getCard = async (person: Device) => {
      const res = await req('GET', paths.card(person.accountId));
      assert.equal(res.status, 200, res.text);
      return res;
    };

    before(async () => {
      ({ t, s } = await startSocialApp(backend));
      reader = await s.person('reader');
      // A display name and no name field; two notes; a phone with an extension.
      plain = await s.person('plain');
      assert.equal((await t.client.as(plain, 'PATCH', `${API}/me`, { body: { display_name: 'Plain Person' }, headers: { 'if-match': '"1"' } })).status, 200);
      const profile = await s.profile(plain, 'Friends');
      plainProfile = profile.id;
      for (const body of [
        { type: 'phone', value: '+44 20 7946 0958 ext. 123', label: 'work' },
        { type: 'note', value: 'Met at the conference' },
        { type: 'note', value: 'Prefers calls after 10; never on Sundays' },
      ]) await s.expose(plain, profile.id, (await s.field(plain, body)).id);
      plainContact = await s.connect(reader, plain, profile.id);
      // Neither a name field nor a display name: the username is the name.
      bare = await s.person('bare');
      const bareProfile = await s.profile(bare, 'Friends');
      await s.expose(bare, bareProfile.id, (await s.field(bare, { type: 'email', value: 'bare@example.org' })).id);
      await s.connect(reader, bare, bareProfile.id);
      login = await davLogin(t, reader);
      paths = bookPaths(reader.accountId);
    });
    after(() => t.close());

    it('N is never empty: a display name alone fills the given-name slot, else the username (3.0 over /dav/, 4.0 by the API)', async () => {
      const lines = vcardLines((await getCard(plain)).text);
      assert.ok(lines.includes('FN:Plain Person'));
      assert.ok(lines.includes('N:;Plain Person;;;'), lines.join('\n'));
      assert.ok(vcardLines((await getCard(bare)).text).includes(`N:;${bare.username};;;`));
      const v4 = await t.client.as(reader, 'GET', `${API}/contacts/${plainContact}/vcard?version=4.0`);
      assert.equal(v4.status, 200);
      assert.ok(vcardLines(v4.body as string).includes('N:;Plain Person;;;'));
    });

    it('an extension as a wait before it, and every note in one NOTE with a blank line between', async () => {
      const lines = vcardLines((await getCard(plain)).text);
      assert.deepEqual(lines.filter((l) => l.startsWith('TEL')), ['TEL;TYPE=VOICE,WORK:+442079460958;123']);
      assert.deepEqual(lines.filter((l) => l.startsWith('NOTE')), ['NOTE:Met at the conference\\n\\nPrefers calls after 10\\; never on Sundays']);
    });

    it('a vCard inside sync-collection and multiget answers writes its CRs as &#13;, so an XML parser reads back the CRLF GET serves', async () => {
      const served = (await getCard(plain)).text;
      const sync = await req('REPORT', paths.book, { body: syncBody(''), depth: '0' });
      assert.equal(sync.status, 207);
      assert.ok(!sync.text.includes('\r'), 'no raw CR in the XML');
      assert.match(sync.text, /BEGIN:VCARD&#13;\n/);
      const synced = readMultistatus(sync.text).responses.find((r) => r.href === paths.card(plain.accountId))!;
      assert.equal(synced.ok.get(C('address-data'))!.textContent, served);
      const multiget = await req('REPORT', paths.book, { body: MULTIGET([paths.card(plain.accountId), paths.card(bare.accountId)]), depth: '0' });
      assert.ok(!multiget.text.includes('\r'));
      for (const r of readMultistatus(multiget.text).responses) {
        const vcard = r.ok.get(C('address-data'))!.textContent!;
        assert.ok(vcard.endsWith('END:VCARD\r\n') && !/[^\r]\n/.test(vcard), 'every line ends in CRLF');
      }
    });

    it('every card has DAV:getcontentlength, the octets GET serves: cadaver\'s listing, a card alone, allprop', async () => {
      const lengths = new Map<string, string>();
      for (const person of [plain, bare]) {
        const got = await getCard(person);
        lengths.set(paths.card(person.accountId), String(Buffer.byteLength(got.text)));
        assert.equal(got.headers.get('content-length') ?? String(Buffer.byteLength(got.text)), lengths.get(paths.card(person.accountId)));
      }
      const listing = readMultistatus((await req('PROPFIND', paths.book, { body: CADAVER_LS, depth: '1' })).text).responses;
      const cards = listing.filter((r) => r.href.endsWith('.vcf'));
      assert.equal(cards.length, 2);
      for (const card of cards) assert.equal(card.ok.get(D('getcontentlength'))?.textContent, lengths.get(card.href), card.href);
      const book = listing.find((r) => r.href === paths.book)!;
      assert.ok(book.missing.includes(D('getcontentlength')), 'a collection has none');
      const one = readMultistatus((await req('PROPFIND', paths.card(plain.accountId), { body: CADAVER_LS, depth: '0' })).text).responses[0]!;
      assert.equal(one.ok.get(D('getcontentlength'))?.textContent, lengths.get(paths.card(plain.accountId)));
      const all = readMultistatus((await req('PROPFIND', paths.card(plain.accountId), { depth: '0' })).text).responses[0]!;
      assert.equal(all.ok.get(D('getcontentlength'))?.textContent, lengths.get(paths.card(plain.accountId)), 'allprop (no body)');
      // Asked only for tags, the listing renders no card and says no length.
      const tags = readMultistatus((await req('PROPFIND', paths.book, { body: '<propfind xmlns="DAV:"><prop><getetag/></prop></propfind>', depth: '1' })).text).responses;
      assert.ok(tags.filter((r) => r.href.endsWith('.vcf')).every((r) => !r.ok.has(D('getcontentlength'))));
    });

    it('/.well-known/carddav redirects to an absolute URL built from PUBLIC_ORIGIN', async () => {
      for (const method of ['GET', 'PROPFIND']) {
        const res = await dav(t.baseUrl, null, method, '/.well-known/carddav');
        assert.equal(res.status, 301);
        assert.equal(res.headers.get('location'), `${PUBLIC_ORIGIN}/dav/`);
      }
    });

    it('PROPFIND / answers with the principal and the home set (a bare host name finds the book); GET / stays the web app', async () => {
      const anonymous = await dav(t.baseUrl, null, 'PROPFIND', '/', { body: DAVX5.baseUrl, depth: '0' });
      assert.equal(anonymous.status, 401);
      assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Basic realm="VID"/);
      const res = await req('PROPFIND', '/', { body: DAVX5.baseUrl, depth: '0' });
      assert.equal(res.status, 207, res.text);
      const [root, ...rest] = readMultistatus(res.text).responses;
      assert.equal(rest.length, 0);
      assert.equal(root!.href, '/');
      assert.deepEqual(hrefsIn(root!.ok.get(D('current-user-principal'))), [paths.principal]);
      assert.deepEqual(hrefsIn(root!.ok.get(C('addressbook-home-set'))), [paths.home]);
      // The web app's answer (its page, or 503 where the bundle is not built), never the address book's.
      const page = await fetch(`${t.baseUrl}/`);
      assert.ok([200, 503].includes(page.status), String(page.status));
      assert.equal(page.headers.get('www-authenticate'), null);
      assert.match(page.headers.get('content-type') ?? '', /^text\/(html|plain)/);
      await page.arrayBuffer();
      const options = await dav(t.baseUrl, login, 'OPTIONS', '/');
      assert.notEqual(options.status, 207, 'only PROPFIND on / is the address book\'s');
    });

    it('the home is not a book: npm `dav` finds exactly one address book, with both cards', async () => {
      const xhr = new davClient.transport.Basic(new davClient.Credentials({ username: login.username, password: login.password }));
      const account = await davClient.createAccount({ server: `${t.baseUrl}/dav/`, xhr, accountType: 'carddav', loadObjects: true });
      assert.deepEqual(account.addressBooks.map((b: { url: string; displayName: string }) => [b.url, b.displayName]), [[`${t.baseUrl}${paths.book}`, 'People I follow']]);
      assert.equal(account.addressBooks[0].objects.length, 2);
      const home = readMultistatus((await req('PROPFIND', paths.home, { body: '<propfind xmlns="DAV:"><prop><displayname/><resourcetype/></prop></propfind>', depth: '0' })).text).responses[0]!;
      assert.deepEqual(home.missing, [D('displayname')]);
    });

    it('cadaver: lists every card with its size and no error, and gets each as GET serves it', { skip: installed('cadaver') }, async () => {
      const home = mkdtempSync(join(tmpdir(), 'vid-cadaver-'));
      try {
        // cadaver reads credentials from ~/.netrc and commands from its standard input.
        writeFileSync(join(home, '.netrc'), `machine 127.0.0.1\nlogin ${login.username}\npassword ${login.password}\n`, { mode: 0o600 });
        const cards = [plain, bare].map((p) => `${p.accountId}.vcf`);
        const commands = ['ls', ...cards.map((c) => `get ${c} ${join(home, c)}`), 'quit', ''].join('\n');
        const child = execFile('cadaver', [`${t.baseUrl}${paths.book}`], { env: { ...process.env, HOME: home }, timeout: 30_000 });
        child.stdin!.end(commands);
        let output = '';
        child.stdout!.on('data', (chunk) => (output += chunk));
        child.stderr!.on('data', (chunk) => (output += chunk));
        await new Promise((resolve) => child.on('close', resolve));
        assert.match(output, /Listing collection `[^']+': succeeded\./, output);
        assert.doesNotMatch(output, /failed|error/i, output);
        for (const [i, person] of [plain, bare].entries()) {
          const served = (await getCard(person)).text;
          assert.match(output, new RegExp(`${cards[i]!.replace('.', '\\.')}\\s+${Buffer.byteLength(served)}\\s`), `the listing gives ${cards[i]}'s size`);
          assert.equal(readFileSync(join(home, cards[i]!), 'utf8'), served);
        }
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    });

    it('SyncEvolution: a sync into a local address book loses nothing of a card with two notes, an extension and no name field', { skip: installed('syncevolution') }, async () => {
      const home = mkdtempSync(join(tmpdir(), 'vid-syncevolution-'));
      const out = join(home, 'phone');
      const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'data'), XDG_CACHE_HOME: join(home, 'cache') };
      const se = (...args: string[]) => run('syncevolution', ['--daemon=no', ...args], { env, timeout: 60_000 });
      try {
        // SyncEvolution's local sync (its documented CardDAV recipe): the /dav/ book as the
        // "server" side, a folder of vCards as the phone, every card through its Synthesis engine.
        await se('--configure', '--template', 'none', 'keyring=no', `username=${login.username}`, `password=${login.password}`, 'backend=carddav', `database=${t.baseUrl}${paths.book}`, 'target-config@vid', 'addressbook');
        await se('--configure', '--template', 'SyncEvolution_Client', 'keyring=no', 'sync=none', 'syncURL=local://@vid', 'backend=file', `database=file://${out}`, 'databaseFormat=text/vcard', 'phone', 'addressbook');
        const { stdout, stderr } = await se('--sync', 'slow', 'phone', 'addressbook');
        assert.match(stdout, /Synchronization successful\./, stdout + stderr);
        assert.doesNotMatch(stdout + stderr, /\[ERROR\]/);
        const synced = readdirSync(out).map((name) => unfold(readFileSync(join(out, name), 'utf8')));
        assert.equal(synced.length, 2);
        const card = synced.find((text) => text.includes('FN:Plain Person'))!;
        assert.ok(card, synced.join('\n'));
        const lines = card.split(/\r?\n/);
        assert.ok(lines.includes('N:;Plain Person;;;'), card);
        // Synthesis writes the wait escaped (\;), which every reader reads back as ';'.
        assert.deepEqual(lines.filter((l) => l.startsWith('TEL')).map((l) => l.replace(/\\;/g, ';')), ['TEL;TYPE=WORK,VOICE:+442079460958;123']);
        assert.deepEqual(lines.filter((l) => l.startsWith('NOTE')), ['NOTE:Met at the conference\\n\\nPrefers calls after 10\\; never on Sundays']);
        assert.ok(synced.some((text) => text.split(/\r?\n/).includes(`N:;${bare.username};;;`)));
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    });

    it('a photo is inline in the card, and adding or changing it moves the card\'s ETag and the book\'s sync token', async () => {
      const tagOf = async () => (await getCard(plain)).headers.get('etag')!;
      const tokenOf = async () => readMultistatus((await req('REPORT', paths.book, { body: syncBody(''), depth: '0' })).text).syncToken!;
      const photoLine = async () => vcardLines((await getCard(plain)).text).find((l) => l.startsWith('PHOTO'));
      const jpeg = (background: string) => sharp({ create: { width: 300, height: 300, channels: 3, background } }).jpeg().toBuffer();
      const [tag0, token0] = [await tagOf(), await tokenOf()];
      assert.equal(await photoLine(), undefined);

      const first = await upload(t, plain, await jpeg('#aa3355'));
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const field = await s.field(plain, { type: 'photo', value: { photo_id: first.body.id } });
      await s.expose(plain, plainProfile, field.id);
      const [tag1, token1, line1] = [await tagOf(), await tokenOf(), await photoLine()];
      assert.notEqual(tag1, tag0);
      assert.notEqual(token1, token0);
      assert.match(line1 ?? '', /^PHOTO;ENCODING=b;TYPE=JPEG:\/9j\//, 'inline JPEG (RFC 2426 §3.1.4)');
      // A sync from the last token carries the changed card with its photo.
      const changed = readMultistatus((await req('REPORT', paths.book, { body: syncBody(token0), depth: '0' })).text).responses;
      assert.deepEqual(changed.map((r) => r.href), [paths.card(plain.accountId)]);
      assert.ok(vcardLines(changed[0]!.ok.get(C('address-data'))!.textContent!).some((l) => l.startsWith('PHOTO;ENCODING=b')));

      const second = await upload(t, plain, await jpeg('#3355aa'));
      const current = await t.client.as(plain, 'GET', `${API}/me/fields/${field.id}`);
      const patched = await t.client.as(plain, 'PATCH', `${API}/me/fields/${field.id}`, { body: { value: { photo_id: second.body.id } }, headers: { 'if-match': current.headers.get('etag')!, 'idempotency-key': randomUUID() } });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      const [tag2, token2, line2] = [await tagOf(), await tokenOf(), await photoLine()];
      assert.notEqual(tag2, tag1);
      assert.notEqual(token2, token1);
      assert.notEqual(line2, line1);
      const again = readMultistatus((await req('REPORT', paths.book, { body: syncBody(token1), depth: '0' })).text).responses;
      assert.deepEqual(again.map((r) => r.href), [paths.card(plain.accountId)]);
    });
  });

  describe(`address book: /dav/ limits [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    // The product's defaults for /dav/ and failed passwords (config.ts), and a small quota.
    before(async () => (t = await startTestApp(backend, { RATE_LIMIT_DAV_PER_MIN: '120', AUTH_FAILURES_PER_CLIENT_PER_MIN: '30', AUTH_FAILURES_PER_KEY_PER_MIN: '20', QUOTA_PER_MONTH: '400' })));
    after(() => t.close());
    const QUERY = '<?xml version="1.0" encoding="utf-8"?><C:addressbook-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:carddav"><D:prop><D:getetag/><C:address-data/></D:prop></C:addressbook-query>';

    it('30 wrong secrets for a known password id leave the right password working, from the same address', async () => {
      const s = social(t);
      const reader = await s.person('victim');
      const login = await davLogin(t, reader);
      const paths = bookPaths(reader.accountId);
      // The id is the password's first 32 characters (vidcd_<id>_<secret>): a stranger may know it.
      const guess = () => `vidcd_${login.tokenId}_${randomUUID().replaceAll('-', '')}${randomUUID().replaceAll('-', '').slice(0, 11)}`;
      const statuses: number[] = [];
      for (let n = 0; n < 30; n++) statuses.push((await dav(t.baseUrl, { ...login, password: guess() }, 'PROPFIND', paths.book, { depth: '0' })).status);
      assert.deepEqual(statuses.slice(0, 20), Array(20).fill(401));
      assert.ok(statuses.slice(20).every((status) => status === 429), 'the guesser is slowed past 20 for the id');
      const refused = await dav(t.baseUrl, { ...login, password: guess() }, 'PROPFIND', paths.book, { depth: '0' });
      assert.equal(refused.status, 429);
      assert.match(refused.headers.get('retry-after') ?? '', /^\d+$/);
      const right = await dav(t.baseUrl, login, 'PROPFIND', paths.book, { depth: '0' });
      assert.equal(right.status, 207, right.text);
      t.clock.advance(61_000);
    });

    it('2,000 queries in a minute on one password: 429 with Retry-After once past the limit, RateLimit-* on each; the monthly quota too', async () => {
      const s = social(t);
      const reader = await s.person('looper');
      const owner = await s.person('owner');
      const profile = await s.profile(owner, 'Friends');
      await s.expose(owner, profile.id, (await s.field(owner, { type: 'nickname', value: 'Owner' })).id);
      await s.connect(reader, owner, profile.id);
      const login = await davLogin(t, reader);
      const paths = bookPaths(reader.accountId);
      let served = 0;
      let first429: { headers: Headers; text: string } | undefined;
      for (let n = 0; n < 2000; n++) {
        const res = await dav(t.baseUrl, login, 'REPORT', paths.book, { body: QUERY, depth: '1' });
        assert.equal(res.headers.get('ratelimit-limit'), '120');
        if (res.status === 207) served++;
        else {
          assert.equal(res.status, 429, res.text);
          first429 = res;
          break;
        }
      }
      assert.equal(served, 120);
      assert.ok(first429, 'refused before 2,000');
      const retryAfter = Number(first429.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(first429.headers.get('ratelimit-remaining'), '0');
      // The clock, not a sleep: the next minute serves again.
      t.clock.advance(retryAfter * 1000);
      assert.equal((await dav(t.baseUrl, login, 'REPORT', paths.book, { body: QUERY, depth: '1' })).status, 207);

      // The account's monthly quota (400 here), counted with its API requests: minute after minute until it is spent.
      let quota: { status: number; headers: Headers } | undefined;
      for (let minute = 0; minute < 5 && !quota; minute++) {
        t.clock.advance(60_000);
        for (let n = 0; n < 120; n++) {
          const res = await dav(t.baseUrl, login, 'PROPFIND', paths.book, { depth: '0', body: '<propfind xmlns="DAV:"><prop><getetag/></prop></propfind>' });
          if (res.status === 429) {
            quota = res;
            break;
          }
        }
      }
      assert.ok(quota, 'the quota ran out');
      assert.equal(quota.headers.get('quota-remaining'), '0');
      assert.ok(Number(quota.headers.get('retry-after')) > 60, 'until the month ends');
    });
  });
}
