// Look-alike usernames (PRODUCT §1 "Usernames", docs/decisions/007-usernames.md "Look-alikes"):
// names that impersonate a registered one by a capital I for l, letters of another script, dots
// or accents are refused as `confusable`; every name is shown in its canonical form.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { SoftwareAuthenticator } from '../helpers/authenticator.js';
import { lookAlikeArb, lookAlikePair } from '../helpers/lookalikes.js';

const API = '/api/v1';
const CHECK = `${API}/auth/username/check`;
const BEGIN = `${API}/auth/register/begin`;
const FINISH = `${API}/auth/register/finish`;

/** Four digits from 2-9 (0 and 1 have look-alike letters): a suffix no other run's name shares. */
let runs = 0;
const runSuffix = () => (runs++).toString(8).padStart(4, '0').replace(/[0-7]/g, (d) => String(Number(d) + 2));

for (const backend of backends) {
  describe(`usernames: look-alikes [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    const check = async (username: string) => {
      const res = await t.client.call('POST', CHECK, { body: { username } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body as { username: string; canonical: string | null; available: boolean; reason?: string };
    };
    const assertRefused = async (username: string, reason: 'confusable' | 'taken') => {
      const body = await check(username);
      assert.equal(body.available, false, `${username}: ${JSON.stringify(body)}`);
      assert.equal(body.reason, reason, `${username}: ${JSON.stringify(body)}`);
      if (reason === 'confusable') {
        const begin = await t.client.call('POST', BEGIN, { body: { username } });
        assert.equal(begin.status, 409, `${username}: ${JSON.stringify(begin.body)}`);
        assert.equal(begin.body.code, 'username_confusable');
      }
    };

    it('"biIIyqz" (capital I for l) beside "billyqz" is confusable; typed in lower case it is another name', async () => {
      await t.client.signUp('billyqz');
      await assertRefused('biIIyqz', 'confusable');
      await assertRefused('BiIIyqz', 'confusable');
      await assertRefused('BILLYQZ', 'taken');
      // "biiiyqz" is shown as typed, as nothing like "billyqz": free.
      assert.equal((await check('biiiyqz')).available, true);
    });

    it('two letters that imitate one: "vvendyqz" beside "wendyqz" and "clanaqz" beside "danaqz" are confusable', async () => {
      await t.client.signUp('wendyqz');
      await t.client.signUp('danaqz');
      for (const name of ['vvendyqz', 'VVENDYQZ', 'vv.endyqz', 'clanaqz', 'c1anaqz']) await assertRefused(name, 'confusable');
    });

    it('a mark or letter Unicode restricts in identifiers (UTS #39) is refused, not registered beside the name it hides in', async () => {
      await t.client.signUp('aliceqz');
      for (const mark of ['\u0486', '\u0951', '\u{1D165}', '\u{1CF00}']) {
        const body = await check(`alic${mark}eqz`);
        assert.deepEqual([body.available, body.reason], [false, 'invalid'], JSON.stringify(body));
        const begin = await t.client.call('POST', BEGIN, { body: { username: `alic${mark}eqz` } });
        assert.equal(begin.status, 400, JSON.stringify(begin.body));
      }
    });

    it('Cyrillic "ТОРЕХА" and Greek "ΤΟΡΕΧΑ" beside "topexa", in capitals or not; "КОМРОТХ" beside "KOMPOTX"', async () => {
      await t.client.signUp('topexa');
      for (const name of ['ТОРЕХА', 'ΤΟΡΕΧΑ', 'тореха', 'Тореха', 'τορεχα']) await assertRefused(name, 'confusable');
      await t.client.signUp('KOMPOTX');
      await assertRefused('КОМРОТХ', 'confusable');
      await assertRefused('комротх', 'confusable');
    });

    it('a name registered in Greek capitals keeps its Latin look-alike out too: "ΚΙΝΟ", then "kino" and "KINO"', async () => {
      const greek = await t.client.signUp('ΚΙΝΟ');
      const me = await t.client.as(greek, 'GET', `${API}/me`);
      assert.equal(me.body.username, 'κινο');
      await assertRefused('kino', 'confusable');
      await assertRefused('KINO', 'confusable');
      await assertRefused('κινο', 'taken');
    });

    it('"a.lice", "a_lice", "a-lice", "alíce" and "ałice" beside "alice" are confusable; "Alice" is taken', async () => {
      await t.client.signUp('alice');
      for (const name of ['a.lice', 'a_lice', 'a-lice', 'al.i-c_e', 'alíce', 'ALÍCE', 'ałice', 'ali\u0301ce']) await assertRefused(name, 'confusable');
      for (const name of ['Alice', 'ALICE', 'ａｌｉｃｅ']) await assertRefused(name, 'taken');
      // Either way round: once "ma.rta" is registered, "marta" is its look-alike.
      await t.client.signUp('ma.rta');
      await assertRefused('marta', 'confusable');
      await assertRefused('Ma.Rta', 'taken');
    });

    it('shows every name in its canonical form: check, register/begin and /finish, /me, the account row, the public card', async () => {
      const typed = 'Quinn.Shown';
      assert.equal((await check(typed)).canonical, 'quinn.shown');
      const begin = await t.client.call('POST', BEGIN, { body: { username: typed } });
      assert.equal(begin.status, 200, JSON.stringify(begin.body));
      assert.equal(begin.body.options.user.name, 'quinn.shown');
      assert.equal(begin.body.options.user.displayName, 'quinn.shown');
      const authenticator = new SoftwareAuthenticator();
      const key = await t.client.newKey();
      const credential = await authenticator.createCredential(begin.body.options, t.client.publicOrigin);
      const finish = await t.client.call('POST', FINISH, { body: { ceremony_id: begin.body.ceremony_id, username: typed, credential }, key });
      assert.equal(finish.status, 201, JSON.stringify(finish.body));
      assert.equal(finish.body.account.username, 'quinn.shown');
      const device = { username: typed, key, authenticator, tokens: finish.body.tokens, accountId: finish.body.account.id };

      assert.equal((await t.client.as(device, 'GET', `${API}/me`)).body.username, 'quinn.shown');
      const row = await t.store.handle.db.selectFrom('accounts').select(['username', 'username_canonical']).where('id', '=', device.accountId).executeTakeFirstOrThrow();
      assert.deepEqual(row, { username: 'quinn.shown', username_canonical: 'quinn.shown' });
      const profile = await t.client.as(device, 'POST', `${API}/profiles`, { body: { name: 'Public', public: true }, headers: { 'idempotency-key': randomUUID() } });
      assert.equal(profile.status, 201, JSON.stringify(profile.body));
      const card = await t.client.call('GET', `${API}/public/${typed}`);
      assert.equal(card.status, 200, JSON.stringify(card.body));
      assert.equal(card.body.owner.username, 'quinn.shown');
    });

    it('two look-alikes finishing at once ("xopek" and Cyrillic "ХОРЕК"): one account, the other 409 username_confusable', async () => {
      const started = await Promise.all(
        ['xopek', 'ХОРЕК'].map(async (username) => {
          const begin = await t.client.call('POST', BEGIN, { body: { username } });
          assert.equal(begin.status, 200, JSON.stringify(begin.body));
          const credential = await new SoftwareAuthenticator().createCredential(begin.body.options, t.client.publicOrigin);
          return { username, ceremony_id: begin.body.ceremony_id, credential, key: await t.client.newKey() };
        }),
      );
      const results = await Promise.all(started.map(({ key, ...body }) => t.client.call('POST', FINISH, { body, key })));
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [201, 409], JSON.stringify(results.map((r) => r.body)));
      assert.equal(results.find((r) => r.status === 409)?.body.code, 'username_confusable');
    });

    it('refuses any look-alike of a registered name: I/l case changes, script swaps, dots, accents (property)', async () => {
      await fc.assert(
        fc.asyncProperty(lookAlikeArb, async (sample) => {
          const { original, variant } = lookAlikePair(sample, runSuffix());
          await t.client.signUp(original);
          const body = await check(variant);
          assert.equal(body.available, false, `${variant} beside ${original}: ${JSON.stringify(body)}`);
          // A look-alike made of characters Unicode restricts in identifiers is refused outright (invalid).
          assert.ok(['confusable', 'taken', 'invalid'].includes(body.reason ?? ''), `${variant} beside ${original}: ${JSON.stringify(body)}`);
        }),
        { numRuns: 50 },
      );
    });
  });
}
