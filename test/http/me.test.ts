// PATCH /me (PRODUCT §0 versions and If-Match, §2 "GET /me, PATCH /me"): display_name, locale
// (BCP 47, canonicalised), default_country (ISO 3166-1 alpha-2); nothing written on any refusal.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { uniqueName } from '../helpers/client.js';
import type { CallResult, Device } from '../helpers/client.js';
import { expectProblem } from '../helpers/problem.js';

const ME = '/api/v1/me';

for (const backend of backends) {
  describe(`identity: GET and PATCH /me [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    const accountRow = (device: Device) =>
      t.store.handle.db.selectFrom('accounts').selectAll().where('id', '=', device.accountId).executeTakeFirstOrThrow();

    async function currentVersion(device: Device): Promise<number> {
      const res = await t.client.as(device, 'GET', ME);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('etag'), `"${res.body.version}"`);
      return res.body.version as number;
    }

    async function patch(device: Device, body: unknown, version?: number | string): Promise<CallResult> {
      const ifMatch = version === undefined ? (`"${await currentVersion(device)}"`) : typeof version === 'number' ? `"${version}"` : version;
      return t.client.as(device, 'PATCH', ME, { body, headers: ifMatch === '' ? {} : { 'if-match': ifMatch } });
    }

    /** A refused PATCH: exact status and code, and the account row is byte-for-byte unchanged. */
    async function expectRefused(device: Device, body: unknown, status: number, code: string, version?: number | string): Promise<CallResult> {
      const before = await accountRow(device);
      const res = await patch(device, body, version);
      expectProblem(res, status, code);
      assert.deepEqual(await accountRow(device), before, 'nothing may be written on a refusal');
      return res;
    }

    it('GET /me returns the identity with version and schema_version, and nulls for unset members', async () => {
      const name = uniqueName('Me');
      const device = await t.client.signUp(name);
      const res = await t.client.as(device, 'GET', ME);
      assert.equal(res.status, 200);
      assert.equal(res.body.username, name.toLowerCase(), 'shown in its canonical form');
      assert.equal(res.body.id, device.accountId);
      assert.equal(res.body.version, 1);
      assert.equal(res.body.schema_version, 1);
      assert.equal(res.body.display_name, null);
      assert.equal(res.body.locale, null);
      assert.equal(res.body.default_country, null);
    });

    it('canonicalises locale ("en-us" -> "en-US") and upper-cases default_country, bumping version and ETag', async () => {
      const device = await t.client.signUp(uniqueName('canon'));
      const version = await currentVersion(device);
      const res = await patch(device, { locale: 'en-us', default_country: 'de' }, version);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.locale, 'en-US');
      assert.equal(res.body.default_country, 'DE');
      assert.equal(res.body.version, version + 1);
      assert.equal(res.headers.get('etag'), `"${version + 1}"`);
      const row = await accountRow(device);
      assert.equal(row.locale, 'en-US');
      assert.equal(row.default_country, 'DE');
      assert.equal(row.version, version + 1);
      // Other BCP 47 forms are canonicalised the same way.
      const zh = await patch(device, { locale: 'ZH-hant-tw' });
      assert.equal(zh.status, 200, JSON.stringify(zh.body));
      assert.equal(zh.body.locale, 'zh-Hant-TW');
    });

    it('trims and NFC-normalises display_name; other members are left as they were', async () => {
      const device = await t.client.signUp(uniqueName('dn'));
      assert.equal((await patch(device, { locale: 'fr-FR' })).status, 200);
      const res = await patch(device, { display_name: '  Zoe\u0308 Martin  ' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.display_name, 'Zo\u00EB Martin');
      assert.equal(res.body.locale, 'fr-FR');
    });

    it('null clears a value', async () => {
      const device = await t.client.signUp(uniqueName('clear'));
      const set = await patch(device, { display_name: 'Ada', locale: 'en-GB', default_country: 'GB' });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      const cleared = await patch(device, { display_name: null, locale: null, default_country: null });
      assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
      assert.equal(cleared.body.display_name, null);
      assert.equal(cleared.body.locale, null);
      assert.equal(cleared.body.default_country, null);
      assert.equal(cleared.body.version, set.body.version + 1);
      const row = await accountRow(device);
      assert.deepEqual([row.display_name, row.locale, row.default_country], [null, null, null]);
    });

    describe('refusals write nothing', () => {
      let device: Device;
      before(async () => {
        device = await t.client.signUp(uniqueName('refuse'));
        const res = await patch(device, { display_name: 'Original', locale: 'de-DE', default_country: 'DE' });
        assert.equal(res.status, 200, JSON.stringify(res.body));
      });

      it('an unknown country ("zz") is 400 validation_failed on /default_country', async () => {
        const res = await expectRefused(device, { default_country: 'zz' }, 400, 'validation_failed');
        assert.equal(res.body.errors[0].path, '/default_country');
      });

      it('a country code of the wrong length is 400 validation_failed on /default_country', async () => {
        const res = await expectRefused(device, { default_country: 'DEU' }, 400, 'validation_failed');
        assert.equal(res.body.errors[0].path, '/default_country');
      });

      it('a display_name with a control character is 400 validation_failed on /display_name', async () => {
        const res = await expectRefused(device, { display_name: 'Bell\u0007' }, 400, 'validation_failed');
        assert.equal(res.body.errors[0].path, '/display_name');
        const newline = await expectRefused(device, { display_name: 'Two\nLines' }, 400, 'validation_failed');
        assert.equal(newline.body.errors[0].path, '/display_name');
      });

      it('a display_name with a bidi override is 400 validation_failed', async () => {
        const res = await expectRefused(device, { display_name: 'abc\u202Efdp.exe' }, 400, 'validation_failed');
        assert.equal(res.body.errors[0].path, '/display_name');
      });

      it('a blank display_name is 400 validation_failed', async () => {
        const res = await expectRefused(device, { display_name: '   ' }, 400, 'validation_failed');
        assert.equal(res.body.errors[0].path, '/display_name');
      });

      it('a display_name over 64 characters is 400 validation_failed', async () => {
        const res = await expectRefused(device, { display_name: 'x'.repeat(65) }, 400, 'validation_failed');
        assert.equal(res.body.errors[0].path, '/display_name');
      });

      it('a locale that is not a BCP 47 tag is 400 validation_failed on /locale', async () => {
        const res = await expectRefused(device, { locale: 'en_US!' }, 400, 'validation_failed');
        assert.equal(res.body.errors[0].path, '/locale');
      });

      it('an empty body is 400 validation_failed', async () => {
        await expectRefused(device, {}, 400, 'validation_failed');
      });

      it('an unknown member is 400 validation_failed naming it', async () => {
        const res = await expectRefused(device, { nickname: 'x' }, 400, 'validation_failed');
        assert.ok((res.body.errors as { path: string }[]).some((e) => e.path === '/nickname'), JSON.stringify(res.body.errors));
        // Read-only members of the identity cannot be patched either.
        await expectRefused(device, { username: 'takeover' }, 400, 'validation_failed');
        await expectRefused(device, { version: 99 }, 400, 'validation_failed');
      });

      it('a wrong type is 400 validation_failed', async () => {
        const res = await expectRefused(device, { display_name: 42 }, 400, 'validation_failed');
        assert.equal(res.body.errors[0].path, '/display_name');
      });

      it('one bad member refuses the whole patch: the valid member is not written either', async () => {
        const res = await expectRefused(device, { display_name: 'Changed', default_country: 'zz' }, 400, 'validation_failed');
        assert.deepEqual((res.body.errors as { path: string }[]).map((e) => e.path), ['/default_country']);
      });

      it('without If-Match is 428 precondition_required', async () => {
        await expectRefused(device, { display_name: 'Changed' }, 428, 'precondition_required', '');
      });

      it('with a stale If-Match is 412 version_mismatch', async () => {
        const version = await currentVersion(device);
        await expectRefused(device, { display_name: 'Changed' }, 412, 'version_mismatch', version - 1);
        await expectRefused(device, { display_name: 'Changed' }, 412, 'version_mismatch', 'W/"1"');
      });

      it('the identity still reads as before all the refusals', async () => {
        const res = await t.client.as(device, 'GET', ME);
        assert.equal(res.body.display_name, 'Original');
        assert.equal(res.body.locale, 'de-DE');
        assert.equal(res.body.default_country, 'DE');
        assert.equal(res.body.version, 2);
      });
    });

    it('a display_name of invisible characters only is 400 validation_failed, nothing written', async () => {
      // src/modules/me/service.ts's own rule: "a display name needs visible characters". U+200B (ZERO WIDTH
      // SPACE, a default-ignorable format character) renders as nothing, so a blank name results.
      const device = await t.client.signUp(uniqueName('invisible'));
      const res = await expectRefused(device, { display_name: '\u200B\u200B' }, 400, 'validation_failed');
      assert.equal(res.body.errors[0].path, '/display_name');
    });

    it('without a token is 401', async () => {
      const res = await t.client.call('PATCH', ME, { body: { display_name: 'x' }, headers: { 'if-match': '"1"' }, key: await t.client.newKey() });
      assert.equal(res.status, 401);
    });
  });
}
