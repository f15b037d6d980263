// PRODUCT §6 (2026-11-26): every vCard endpoint (the public card's, a contact's, the
// all-contacts file) answers 3.0 by default, 4.0 on ?version=4.0 or Accept: text/vcard;
// version=4.0, and RFC 9554's properties only on rfc9554=true with 4.0; any other version is 400
// validation_failed. Each version is its own representation (its own strong ETag, Vary: Accept),
// and the file is named after the person: an ASCII filename beside the UTF-8 filename*.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse as parseDisposition } from 'content-disposition';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import type { CallResult, Device } from '../helpers/client.js';
import { expectProblem } from '../helpers/problem.js';
import { API, startSocialApp } from '../helpers/social.js';
import type { Social } from '../helpers/social.js';

const versionOf = (res: CallResult) => /^BEGIN:VCARD\r\nVERSION:(\d\.\d)\r\n/.exec(String(res.body))?.[1];
let names = 0;
/** A username in one script (digits join any): no Latin letters beside a Greek name. */
const scriptName = (prefix: string) => `${prefix}${process.pid % 10000}${++names}${Date.now() % 1000}`;

for (const backend of backends) {
  describe(`vCard versions, tags and file names [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: Social;
    let zoe: Device;
    let bob: Device;
    let contactId: string;
    let phoneId: string;
    before(async () => {
      ({ t, s } = await startSocialApp(backend));
      zoe = await t.client.signUp(scriptName('zoë'));
      bob = await s.person('bob');
      phoneId = (await s.field(zoe, { type: 'phone', value: '+44 20 7946 0958 ext. 12', label: 'work' })).id;
      const pronouns = await s.field(zoe, { type: 'pronouns', value: 'she/her' });
      const social = await s.field(zoe, { type: 'social', value: { platform: 'github', handle: 'octocat' } });
      const open = await s.profile(zoe, 'Public', true);
      const friends = await s.profile(zoe, 'Friends');
      for (const id of [phoneId, pronouns.id, social.id]) {
        await s.expose(zoe, open.id, id);
        await s.expose(zoe, friends.id, id);
      }
      contactId = await s.connect(bob, zoe, friends.id);
    });
    after(() => t.close());

    /** The three vCard endpoints, each asked with a query and headers. */
    const endpoints = [
      { name: 'public', get: (query: string, headers: Record<string, string> = {}) => t.client.call('GET', `${API}/public/${encodeURIComponent(zoe.username)}/vcard${query}`, { headers }) },
      { name: 'contact', get: (query: string, headers: Record<string, string> = {}) => s.get(bob, `/contacts/${contactId}/vcard${query}`, headers) },
      { name: 'all contacts', get: (query: string, headers: Record<string, string> = {}) => s.get(bob, `/contacts/vcard${query}`, headers) },
    ];

    it('answers 3.0 by default, 4.0 on ?version=4.0 or Accept, the query winning over Accept', async () => {
      const cases: Array<[string, Record<string, string>, string]> = [
        ['', {}, '3.0'],
        ['', { accept: '*/*' }, '3.0'],
        ['', { accept: 'text/vcard' }, '3.0'],
        ['', { accept: 'application/json' }, '3.0'],
        ['', { accept: 'text/vcard;version=2.1, */*;q=0.1' }, '3.0'],
        ['?version=3.0', {}, '3.0'],
        ['?version=4.0', {}, '4.0'],
        ['', { accept: 'text/vcard; version=4.0' }, '4.0'],
        ['', { accept: 'TEXT/VCARD; VERSION="4.0"; charset=UTF-8' }, '4.0'],
        ['', { accept: 'text/vcard; version=3.0' }, '3.0'],
        ['', { accept: 'text/vcard;version=3.0;q=0.5, text/vcard;version=4.0' }, '4.0'],
        ['', { accept: 'text/vcard, text/vcard;version=4.0' }, '4.0'],
        ['?version=3.0', { accept: 'text/vcard; version=4.0' }, '3.0'],
        ['?version=4.0', { accept: 'text/vcard; version=3.0' }, '4.0'],
      ];
      for (const endpoint of endpoints) {
        for (const [query, headers, version] of cases) {
          const res = await endpoint.get(query, headers);
          assert.equal(res.status, 200, `${endpoint.name} ${query} ${JSON.stringify(headers)}: ${JSON.stringify(res.body)}`);
          assert.equal(res.headers.get('content-type'), 'text/vcard; charset=utf-8');
          assert.equal(versionOf(res), version, `${endpoint.name} ${query} ${JSON.stringify(headers)}`);
          assert.match(res.headers.get('vary') ?? '', /\baccept\b/i, 'the answer varies with Accept');
        }
      }
    });

    it('refuses any other version with 400 validation_failed, from the query or from Accept', async () => {
      for (const endpoint of endpoints) {
        const query = expectProblem(await endpoint.get('?version=2.1'), 400, 'validation_failed', endpoint.name);
        assert.equal(query.errors[0].path, 'querystring:/version');
        for (const accept of ['text/vcard; version=2.1', 'text/vcard;version=5.0, application/json']) {
          const header = expectProblem(await endpoint.get('', { accept }), 400, 'validation_failed', `${endpoint.name} ${accept}`);
          assert.deepEqual(header.errors.map((e: { path: string; code: string }) => [e.path, e.code]), [['headers:/accept', 'vcard_version_unavailable']]);
        }
        for (const [q, accept] of [['?rfc9554=true', undefined], ['?version=3.0&rfc9554=true', undefined], ['?rfc9554=true', 'text/vcard; version=3.0']] as const) {
          const refused = expectProblem(await endpoint.get(q, accept ? { accept } : {}), 400, 'validation_failed', `${endpoint.name} ${q}`);
          assert.deepEqual(refused.errors.map((e: { path: string; code: string }) => [e.path, e.code]), [['querystring:/rfc9554', 'vcard_4_required']]);
        }
      }
    });

    it('writes RFC 9554\'s properties only on rfc9554=true with 4.0, else their X- forms', async () => {
      for (const endpoint of endpoints) {
        const plain = String((await endpoint.get('?version=4.0')).body);
        assert.match(plain, /\r\nX-SOCIALPROFILE;TYPE=github;X-USER=octocat:https:\/\/github\.com\/octocat\r\n/);
        assert.match(plain, /\r\nX-PRONOUNS:she\/her\r\n/);
        assert.doesNotMatch(plain, /\r\n(SOCIALPROFILE|PRONOUNS)[;:]/);
        for (const res of [await endpoint.get('?version=4.0&rfc9554=true'), await endpoint.get('?rfc9554=true', { accept: 'text/vcard; version=4.0' })]) {
          assert.equal(res.status, 200);
          assert.match(String(res.body), /\r\nSOCIALPROFILE;SERVICE-TYPE=github:https:\/\/github\.com\/octocat\r\n/);
          assert.match(String(res.body), /\r\nPRONOUNS:she\/her\r\n/);
          assert.doesNotMatch(String(res.body), /\r\nX-(SOCIALPROFILE|PRONOUNS)[;:]/);
        }
        const v3 = String((await endpoint.get('')).body);
        assert.match(v3, /\r\nTEL;TYPE=VOICE,WORK:\+442079460958;12\r\n/, 'the extension after a wait ";" (decision 310), no ;ext= in 3.0');
        assert.match(String((await endpoint.get('?version=4.0')).body), /\r\nTEL;TYPE=voice,work;VALUE=uri:tel:\+442079460958;ext=12\r\n/);
      }
    });

    it('tags each version apart (strong ETags), answers 304 to its own tag only, and moves every tag with the card', async () => {
      for (const endpoint of endpoints.filter((e) => e.name !== 'all contacts')) {
        const v3 = await endpoint.get('');
        const v4 = await endpoint.get('?version=4.0');
        const v4x = await endpoint.get('?version=4.0&rfc9554=true');
        const tags = [v3, v4, v4x].map((res) => res.headers.get('etag')!);
        for (const tag of tags) assert.match(tag, /^"[^"]+"$/, 'a strong tag');
        assert.equal(new Set(tags).size, 3, `${endpoint.name}: each version and form its own tag`);
        // The same representation asked for another way has the same tag.
        assert.equal((await endpoint.get('?version=3.0')).headers.get('etag'), tags[0]);
        assert.equal((await endpoint.get('', { accept: 'text/vcard; version=3.0' })).headers.get('etag'), tags[0]);
        assert.equal((await endpoint.get('', { accept: 'text/vcard; version=4.0' })).headers.get('etag'), tags[1]);
        // If-None-Match: 304 only for the tag of the version asked for.
        assert.equal((await endpoint.get('', { 'if-none-match': tags[0]! })).status, 304);
        assert.equal((await endpoint.get('', { accept: 'text/vcard; version=4.0', 'if-none-match': tags[1]! })).status, 304);
        assert.equal((await endpoint.get('?version=4.0', { 'if-none-match': tags[0]! })).status, 200, `${endpoint.name}: a 3.0 tag does not answer for 4.0`);
        assert.equal((await endpoint.get('', { 'if-none-match': tags[1]! })).status, 200, `${endpoint.name}: a 4.0 tag does not answer for 3.0`);
        assert.equal((await endpoint.get('?version=4.0', { 'if-none-match': tags[2]! })).status, 200);
      }
      const before = await Promise.all(endpoints.slice(0, 2).flatMap((e) => [e.get(''), e.get('?version=4.0'), e.get('?version=4.0&rfc9554=true')]));
      t.clock.advance(60_000);
      const patched = await t.client.as(zoe, 'PATCH', `${API}/me/fields/${phoneId}`, { body: { value: '+44 20 7946 0959' }, headers: { 'if-match': '*' } });
      assert.equal(patched.status, 200);
      const later = await Promise.all(endpoints.slice(0, 2).flatMap((e) => [e.get(''), e.get('?version=4.0'), e.get('?version=4.0&rfc9554=true')]));
      before.forEach((res, i) => assert.notEqual(later[i]!.headers.get('etag'), res.headers.get('etag'), 'a changed card changes every tag'));
    });

    it('names the file after the person: an ASCII filename and the UTF-8 filename* (RFC 6266, RFC 8187)', async () => {
      for (const endpoint of endpoints) {
        const res = await endpoint.get('');
        const disposition = res.headers.get('content-disposition') ?? '';
        const parsed = parseDisposition(disposition);
        assert.equal(parsed.type, 'attachment');
        if (endpoint.name === 'all contacts') {
          assert.equal(disposition, 'attachment; filename=contacts.vcf');
          continue;
        }
        assert.equal(parsed.parameters.filename, `${zoe.username}.vcf`, 'the UTF-8 name, read from filename*');
        const ascii = zoe.username.replace('ë', 'e');
        assert.ok(disposition.includes(`filename=${ascii}.vcf;`), `"Zoë" falls back to "zoe": ${disposition}`);
        assert.ok(disposition.includes(`filename*=UTF-8''${encodeURIComponent(zoe.username)}.vcf`), disposition);
        if (endpoint.name === 'public') assert.match(res.headers.get('access-control-expose-headers') ?? '', /Content-Disposition/, 'a script on another origin may read the name');
      }
      // A name in another script: its Latin reading, lower-cased.
      const eleni = await t.client.signUp(scriptName('ελένη'));
      const open = await s.profile(eleni, 'Public', true);
      await s.expose(eleni, open.id, (await s.field(eleni, { type: 'nickname', value: 'Λενιώ' })).id);
      const res = await t.client.call('GET', `${API}/public/${encodeURIComponent(eleni.username)}/vcard`);
      assert.equal(res.status, 200);
      const disposition = res.headers.get('content-disposition') ?? '';
      assert.ok(disposition.startsWith(`attachment; filename=eleni${eleni.username.slice('ελένη'.length)}.vcf; filename*=UTF-8''`), disposition);
      assert.equal(parseDisposition(disposition).parameters.filename, `${eleni.username}.vcf`);
    });
  });
}
