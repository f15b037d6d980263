// Username availability and the refusals of register/begin (PRODUCT §1 "Usernames", STANDARDS
// "Usernames": PRECIS enforcement, reserved list, UTS #39 confusable skeleton, mixed scripts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { confusableSkeleton } from '../../src/modules/usernames/migrations/013-username-keys.js';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';

const CHECK = '/api/v1/auth/username/check';
const BEGIN = '/api/v1/auth/register/begin';

for (const backend of backends) {
  describe(`usernames: the check and register/begin refusals [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    const check = (username: string) => t.client.call('POST', CHECK, { body: { username } });
    const begin = (username: string) => t.client.call('POST', BEGIN, { body: { username } });
    const accountRows = () => t.store.handle.db.selectFrom('accounts').select(['id', 'username', 'username_canonical']).execute();
    const ceremonyRows = () => t.store.handle.db.selectFrom('ceremonies').select(['id']).execute();

    it('reports a free name as available with its canonical (case-folded) form and no reason', async () => {
      const res = await check('Charlotte.Free');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { username: 'Charlotte.Free', canonical: 'charlotte.free', available: true, schema_version: 1 });
    });

    it('treats names case-insensitively: "Alice" is taken once "alice" signed up', async () => {
      await t.client.signUp('alice');
      const res = await check('Alice');
      assert.equal(res.status, 200);
      assert.equal(res.body.username, 'Alice');
      assert.equal(res.body.canonical, 'alice');
      assert.equal(res.body.available, false);
      assert.equal(res.body.reason, 'taken');
      // Fullwidth forms are width-mapped first (RFC 8265 §3.3.2 rule 1): the same name again.
      const wide = await check('ＡＬＩＣＥ');
      assert.equal(wide.body.canonical, 'alice');
      assert.equal(wide.body.reason, 'taken');
    });

    it('refuses reserved names, in any case and as a confusable lookalike of a reserved name', async () => {
      const admin = await check('Admin');
      assert.equal(admin.status, 200);
      assert.deepEqual(
        { canonical: admin.body.canonical, available: admin.body.available, reason: admin.body.reason },
        { canonical: 'admin', available: false, reason: 'reserved' },
      );
      // "adrnin" has the skeleton of "admin" (rn -> m): reserved too, not merely confusable.
      assert.equal(confusableSkeleton('adrnin'), confusableSkeleton('admin'));
      const lookalike = await check('adrnin');
      assert.equal(lookalike.body.available, false);
      assert.equal(lookalike.body.reason, 'reserved');
    });

    it('flags a name whose confusable skeleton equals a taken one: "paypa1" after "paypal"', async () => {
      // Guard the premise: TR39 confusables map the digit 1 to the letter l.
      assert.equal(confusableSkeleton('paypa1'), confusableSkeleton('paypal'));
      await t.client.signUp('paypal');
      const res = await check('paypa1');
      assert.equal(res.status, 200);
      assert.deepEqual(
        { canonical: res.body.canonical, available: res.body.available, reason: res.body.reason },
        { canonical: 'paypa1', available: false, reason: 'confusable' },
      );
      // The same canonical form is "taken", not "confusable".
      const same = await check('PayPal');
      assert.equal(same.body.reason, 'taken');
    });

    for (const [label, name] of [
      ['too short', 'ab'],
      ['a space', 'two words'],
      ['mixed Latin and Cyrillic (U+0430)', 'p\u0430ypal'],
      ['an emoji', 'smile\u{1F600}'],
      ['leading punctuation', '.dotted'],
      ['doubled punctuation', 'a..b'],
      ['a zero-width joiner', 'ab\u200Dcd'],
    ] as const) {
      it(`reports ${label} as invalid with canonical null and a detail`, async () => {
        const res = await check(name);
        assert.equal(res.status, 200);
        assert.equal(res.body.username, name);
        assert.equal(res.body.canonical, null);
        assert.equal(res.body.available, false);
        assert.equal(res.body.reason, 'invalid');
        assert.equal(typeof res.body.detail, 'string');
      });
    }

    it('refuses a body without username or with an unknown member: 400 validation_failed', async () => {
      const missing = await t.client.call('POST', CHECK, { body: {} });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.code, 'validation_failed');
      const extra = await t.client.call('POST', CHECK, { body: { username: 'someone', reserve: true } });
      assert.equal(extra.status, 400);
      assert.equal(extra.body.code, 'validation_failed');
    });

    it('reserves nothing: checking twice leaves the name free, then sign-up takes it', async () => {
      const accountsBefore = await accountRows();
      const first = await check('Dora.Reserve');
      const second = await check('dora.reserve');
      assert.equal(first.body.available, true);
      assert.equal(second.body.available, true);
      assert.deepEqual(await accountRows(), accountsBefore);
      await t.client.signUp('Dora.Reserve');
      const after = await check('dora.reserve');
      assert.equal(after.body.available, false);
      assert.equal(after.body.reason, 'taken');
    });

    describe('register/begin applies the same rules as a refusal', () => {
      it('invalid name: 400 username_invalid with errors[] on /username, no ceremony stored', async () => {
        const ceremoniesBefore = (await ceremonyRows()).length;
        for (const name of ['ab', 'two words', 'p\u0430ypal', 'smile\u{1F600}']) {
          const res = await begin(name);
          assert.equal(res.status, 400, name);
          assert.equal(res.body.code, 'username_invalid', name);
          assert.ok(Array.isArray(res.body.errors) && res.body.errors.length > 0, name);
          assert.equal(res.body.errors[0].path, '/username');
        }
        assert.equal((await ceremonyRows()).length, ceremoniesBefore);
      });

      it('reserved name: 409 username_reserved', async () => {
        const res = await begin('Admin');
        assert.equal(res.status, 409);
        assert.equal(res.body.code, 'username_reserved');
        assert.equal(res.headers.get('content-type')?.split(';')[0], 'application/problem+json');
      });

      it('taken name (other case): 409 username_taken', async () => {
        await t.client.signUp('bertram');
        const res = await begin('BERTRAM');
        assert.equal(res.status, 409);
        assert.equal(res.body.code, 'username_taken');
      });

      it('confusable name: 409 username_confusable', async () => {
        await t.client.signUp('google');
        assert.equal(confusableSkeleton('goog1e'), confusableSkeleton('google'));
        const res = await begin('goog1e');
        assert.equal(res.status, 409);
        assert.equal(res.body.code, 'username_confusable');
      });

      it('no refusal stores a ceremony or an account', async () => {
        const accountsBefore = await accountRows();
        const ceremoniesBefore = (await ceremonyRows()).length;
        for (const name of ['Admin', 'alice', 'paypa1', 'x']) assert.notEqual((await begin(name)).status, 200, name);
        assert.deepEqual(await accountRows(), accountsBefore);
        assert.equal((await ceremonyRows()).length, ceremoniesBefore);
      });

      it('an available name: 200 with a ceremony id and creation options', async () => {
        const res = await begin('Fresh.Name');
        assert.equal(res.status, 200);
        assert.match(res.body.ceremony_id, /^cer_/);
        assert.equal(res.body.options.user.name, 'fresh.name');
        // Shown as the account will show it: the canonical form, not as typed.
        assert.equal(res.body.options.user.displayName, 'fresh.name');
      });
    });
  });
}
