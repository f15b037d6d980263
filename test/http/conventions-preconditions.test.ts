// PRODUCT §0: versioned resources answer ETag: "<version>"; updates need If-Match (missing: 428
// precondition_required; stale or not a strong tag of ours: 412 version_mismatch), RFC 9110 §13.1.1
// (strong comparison) and RFC 6585 §3.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { uniqueName } from '../helpers/client.js';
import type { CallResult, Device } from '../helpers/client.js';
import { expectProblem } from '../helpers/problem.js';

const ME = '/api/v1/me';

/** The shared refusal checks, and this suite's: a refused conditional request carries no ETag. */
function expectRefusalWithoutEtag(res: CallResult, status: number, code: string): void {
  expectProblem(res, status, code);
  assert.equal(res.headers.get('etag'), null, 'a refusal carries no ETag');
}

for (const backend of backends) {
  describe(`conventions: If-Match on PATCH /me [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    async function read(device: Device): Promise<{ version: number; etag: string | null; body: any }> {
      const me = await t.client.as(device, 'GET', ME);
      assert.equal(me.status, 200);
      assert.equal(typeof me.body.version, 'number');
      return { version: me.body.version, etag: me.headers.get('etag'), body: me.body };
    }

    it('GET /me sends the version as a strong ETag', async () => {
      const device = await t.client.signUp(uniqueName('etag'));
      const me = await read(device);
      assert.equal(me.etag, `"${me.version}"`);
      assert.equal(me.body.schema_version, 1);
    });

    it('answers a PATCH without If-Match with 428 precondition_required and changes nothing', async () => {
      const device = await t.client.signUp(uniqueName('noif'));
      const before = await read(device);
      const res = await t.client.as(device, 'PATCH', ME, { body: { display_name: 'Blind Write' } });
      expectRefusalWithoutEtag(res, 428, 'precondition_required');
      const empty = await t.client.as(device, 'PATCH', ME, { body: { display_name: 'Blind Write' }, headers: { 'if-match': '' } });
      expectRefusalWithoutEtag(empty, 428, 'precondition_required');
      const now = await read(device);
      assert.equal(now.version, before.version);
      assert.equal(now.body.display_name, before.body.display_name);
    });

    it('answers a stale If-Match with 412 version_mismatch and changes nothing', async () => {
      const device = await t.client.signUp(uniqueName('stale'));
      const { version: v } = await read(device);
      const ok = await t.client.as(device, 'PATCH', ME, { body: { display_name: 'One' }, headers: { 'if-match': `"${v}"` } });
      assert.equal(ok.status, 200);
      const stale = await t.client.as(device, 'PATCH', ME, { body: { display_name: 'Two' }, headers: { 'if-match': `"${v}"` } });
      expectRefusalWithoutEtag(stale, 412, 'version_mismatch');
      const future = await t.client.as(device, 'PATCH', ME, { body: { display_name: 'Two' }, headers: { 'if-match': `"${v + 5}"` } });
      expectRefusalWithoutEtag(future, 412, 'version_mismatch');
      const now = await read(device);
      assert.equal(now.version, v + 1);
      assert.equal(now.body.display_name, 'One');
    });

    it('compares strongly: a weak tag or a tag naming no version is 412; a field outside the grammar is 400', async () => {
      const device = await t.client.signUp(uniqueName('weak'));
      const { version: v } = await read(device);
      for (const tag of [`W/"${v}"`, `"v${v}"`, `W/"${v}", "v${v}"`]) {
        const res = await t.client.as(device, 'PATCH', ME, { body: { display_name: 'Weak' }, headers: { 'if-match': tag } });
        expectRefusalWithoutEtag(res, 412, 'version_mismatch');
      }
      for (const tag of ['garbage', '"unterminated', `"${v}" junk`, ',']) {
        const res = await t.client.as(device, 'PATCH', ME, { body: { display_name: 'Weak' }, headers: { 'if-match': tag } });
        expectRefusalWithoutEtag(res, 400, 'invalid_if_match');
      }
      assert.equal((await read(device)).version, v);
    });

    it('reads If-Match as the spec writes it: a bare version, *, and a list that names the current version (RFC 9110 §13.1.1)', async () => {
      const device = await t.client.signUp(uniqueName('forms'));
      let { version: v } = await read(device);
      const forms = [(n: number) => `${n}`, (n: number) => `"${n}"`, () => '*', (n: number) => `"${n + 7}", "${n}"`, (n: number) => `W/"${n}", ${n}`, (n: number) => ` "${n - 1}" ,"${n}" `];
      for (const [i, form] of forms.entries()) {
        const tag = form(v);
        const res = await t.client.as(device, 'PATCH', ME, { body: { display_name: `Form ${i}` }, headers: { 'if-match': tag } });
        assert.equal(res.status, 200, `If-Match: ${tag} -> ${res.status} ${JSON.stringify(res.body)}`);
        assert.equal(res.body.version, v + 1);
        v += 1;
      }
      // A list without the current version is a real mismatch.
      const stale = await t.client.as(device, 'PATCH', ME, { body: { display_name: 'Stale' }, headers: { 'if-match': `"${v - 1}", "${v + 1}"` } });
      expectRefusalWithoutEtag(stale, 412, 'version_mismatch');
      assert.equal((await read(device)).version, v);
    });

    it('matches * only against a resource that exists: deleting a field with * works once, then 404', async () => {
      const device = await t.client.signUp(uniqueName('star'));
      const created = await t.client.as(device, 'POST', '/api/v1/me/fields', { body: { type: 'nickname', value: 'Star' }, headers: { 'idempotency-key': crypto.randomUUID() } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const url = `/api/v1/me/fields/${created.body.id}`;
      const patched = await t.client.as(device, 'PATCH', url, { body: { label: 'any version' }, headers: { 'if-match': '*' } });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      const removed = await t.client.as(device, 'DELETE', url, { headers: { 'if-match': '*' } });
      assert.equal(removed.status, 204);
      const again = await t.client.as(device, 'DELETE', url, { headers: { 'if-match': '*' } });
      assert.equal(again.status, 412, JSON.stringify(again.body));
    });

    it('never refuses If-Match: * because of a concurrent change: ten PATCH /me and ten PATCH of a field at once all apply', async () => {
      const device = await t.client.signUp(uniqueName('starrace'));
      const start = (await read(device)).version;
      const names = Array.from({ length: 10 }, (_, i) => `Racer ${i}`);
      const answers = await Promise.all(names.map((name) => t.client.as(device, 'PATCH', ME, { body: { display_name: name }, headers: { 'if-match': '*' } })));
      for (const res of answers) assert.equal(res.status, 200, JSON.stringify(res.body));
      // Each applied on its own version: ten distinct versions, the last one start + 10.
      assert.deepEqual(answers.map((res) => res.body.version).sort((a, b) => a - b), names.map((_, i) => start + i + 1));
      assert.equal((await read(device)).version, start + 10);
      // A field (read fresh from its own table), and a list whose one tag is current matches the same way.
      const created = await t.client.as(device, 'POST', '/api/v1/me/fields', { body: { type: 'nickname', value: 'Race' }, headers: { 'idempotency-key': crypto.randomUUID() } });
      const url = `/api/v1/me/fields/${created.body.id}`;
      const fieldAnswers = await Promise.all(names.map((label) => t.client.as(device, 'PATCH', url, { body: { label }, headers: { 'if-match': '*' } })));
      for (const res of fieldAnswers) assert.equal(res.status, 200, JSON.stringify(res.body));
      // A single tag still means that version only: a concurrent change makes it 412.
      const current = (await read(device)).version;
      const single = await Promise.all([0, 1].map((i) => t.client.as(device, 'PATCH', ME, { body: { display_name: `Single ${i}` }, headers: { 'if-match': `"${current}"` } })));
      assert.deepEqual(single.map((res) => res.status).sort(), [200, 412]);
    });

    it('applies a PATCH with the current ETag: 200, version + 1, new ETag', async () => {
      const device = await t.client.signUp(uniqueName('good'));
      const before = await read(device);
      const res = await t.client.as(device, 'PATCH', ME, {
        body: { display_name: '  Zoë Example  ', locale: 'fr-ch', default_country: 'fr' },
        headers: { 'if-match': before.etag as string },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.version, before.version + 1);
      assert.equal(res.headers.get('etag'), `"${before.version + 1}"`);
      assert.equal(res.body.display_name, 'Zoë Example');
      assert.equal(res.body.locale, 'fr-CH');
      assert.equal(res.body.default_country, 'FR');
      assert.equal(res.body.schema_version, 1);
      const after = await read(device);
      assert.equal(after.etag, res.headers.get('etag'));
      assert.deepEqual(after.body, res.body);
      // The new ETag works for the next change; the old one no longer does.
      const next = await t.client.as(device, 'PATCH', ME, { body: { display_name: null }, headers: { 'if-match': after.etag as string } });
      assert.equal(next.status, 200);
      assert.equal(next.body.version, before.version + 2);
      assert.equal(next.body.display_name, null);
      const old = await t.client.as(device, 'PATCH', ME, { body: { display_name: 'x' }, headers: { 'if-match': after.etag as string } });
      expectRefusalWithoutEtag(old, 412, 'version_mismatch');
    });

    it('lets exactly one of two concurrent PATCHes with the same If-Match win', async () => {
      const device = await t.client.signUp(uniqueName('race'));
      for (let round = 0; round < 3; round++) {
        const { version: v, etag } = await read(device);
        const names = [`Left ${round}`, `Right ${round}`];
        const results = await Promise.all(
          names.map((display_name) => t.client.as(device, 'PATCH', ME, { body: { display_name }, headers: { 'if-match': etag as string } })),
        );
        assert.deepEqual(results.map((r) => r.status).sort(), [200, 412], JSON.stringify(results.map((r) => r.body)));
        const winner = results.find((r) => r.status === 200)!;
        const loser = results.find((r) => r.status === 412)!;
        expectRefusalWithoutEtag(loser, 412, 'version_mismatch');
        assert.equal(winner.body.version, v + 1);
        const now = await read(device);
        assert.equal(now.version, v + 1);
        assert.equal(now.body.display_name, winner.body.display_name);
      }
    });
  });
}
