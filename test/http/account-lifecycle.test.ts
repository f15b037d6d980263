// PRODUCT §8: export, delete, undelete and purge, through the real HTTP API on both backends,
// with the subscribers' view at each stage and the clock moved by hand (never slept).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { projectRoot } from '../../src/platform/paths.js';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import type { Device } from '../helpers/client.js';
import { API, social } from '../helpers/social.js';
import { downloadRecoveryKey, enrollTotp, logInAs, stepUp } from '../helpers/step-up.js';
import { expectProblem } from '../helpers/problem.js';
import { upload } from '../helpers/photos.js';
import sharp from 'sharp';

const DAY = 86_400_000;

for (const backend of backends) {
  describe(`account lifecycle [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: ReturnType<typeof social>;
    before(async () => {
      t = await startTestApp(backend, { ACCOUNT_GRACE_DAYS: '30', USERNAME_HOLD_DAYS: '365' });
      s = social(t);
    });
    after(() => t.close());

    const withStepUp = async (device: Device) => ({ 'vid-step-up': await stepUp(t.client, device) });
    const exportOf = async (device: Device) => {
      const res = await t.client.as(device, 'GET', `${API}/account/export`, { headers: await withStepUp(device) });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res;
    };
    const deleteAccount = async (device: Device) => {
      const res = await t.client.as(device, 'DELETE', `${API}/account`, { headers: await withStepUp(device) });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      return res.body;
    };

    /** Alice with a field on a public profile, Bob subscribed and active, a share link; Carol pending. */
    async function world() {
      const alice = await s.person('alice');
      const bob = await s.person('bob');
      const carol = await s.person('carol');
      const phone = await s.field(alice, { type: 'phone', value: '+49 30 22732152' });
      const work = await s.profile(alice, 'Work', true);
      await s.expose(alice, work.id, phone.id);
      const contactId = await s.connect(bob, alice, work.id);
      const carolRequest = (await s.subscribe(carol, alice)).body;
      const link = (await s.post(alice, '/share-links', { profile_id: work.id, auto_approve: false })).body;
      // Alice subscribes to Bob too: her own contacts pause while she is gone.
      const bobWork = await s.profile(bob, 'Bob work');
      const aliceToBob = await s.connect(alice, bob, bobWork.id);
      return { alice, bob, carol, phone, work, contactId, carolRequest, link, bobWork, aliceToBob };
    }

    it('export needs step-up, is an attachment, holds every section and no secret', async () => {
      const { alice, link } = await world();
      await enrollTotp(t.client, alice);
      const recoveryKey = await downloadRecoveryKey(t.client, alice);
      expectProblem(await t.client.as(alice, 'GET', `${API}/account/export`), 403, 'step_up_required');
      const res = await exportOf(alice);
      assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="vid-export-alice[^"]*\.json"/);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const doc = res.body;
      assert.equal(doc.schema_version, 1);
      assert.equal(doc.account.username, alice.username);
      for (const section of ['fields', 'profiles', 'subscriptions', 'contacts', 'annotations', 'blocks', 'share_links', 'passkeys', 'totp', 'sessions', 'security_log']) {
        assert.ok(Array.isArray(doc[section]), `section ${section}`);
      }
      assert.equal(doc.fields.length, 1);
      assert.equal(doc.profiles[0].card.fields[0].value, '+493022732152');
      assert.equal(doc.subscriptions.length, 2);
      assert.equal(doc.contacts.length, 1);
      assert.equal(doc.contacts[0].card.owner.username.length > 0, true);
      assert.equal(doc.share_links[0].id, link.id);
      assert.equal(doc.totp.length, 1);
      // No secrets: no tokens, no recovery key, no link token, no TOTP secret, no public keys.
      const text = JSON.stringify(doc);
      for (const secret of [alice.tokens.access_token, alice.tokens.refresh_token, recoveryKey, link.token]) assert.ok(!text.includes(secret), 'a secret leaked into the export');
      assert.ok(!/secret|token_hash|public_key|refresh/i.test(JSON.stringify({ ...doc, left_out: [] })), 'a secret-looking member in the export');
      const leftOut = new Map<string, any>(doc.left_out.map((entry: any) => [entry.table, entry]));
      assert.ok(leftOut.get('recovery_keys')?.reason);
      assert.deepEqual(leftOut.get('totp_authenticators')?.columns, ['secret_sealed', 'last_step']);
      assert.ok(leftOut.get('share_links')?.columns.includes('token_sealed'));
    });

    it('every table in the database is exported or left out with a reason', async () => {
      const declared = new Map(t.accountData.tables().map((d) => [d.table, d]));
      const tables = (await t.store.handle.db.introspection.getTables({ withInternalKyselyTables: true })).map((table) => table.name);
      assert.ok(tables.includes('accounts') && tables.includes('subscriptions'));
      const undeclared = tables.filter((name) => !declared.has(name));
      assert.deepEqual(undeclared, [], `tables with no export decision: ${undeclared.join(', ')}`);
      // Every section a table is exported under exists in the document.
      const alice = await s.person('complete');
      const doc = (await exportOf(alice)).body;
      for (const { table, fate } of declared.values()) {
        if (!('exported' in fate)) continue;
        for (const section of [fate.exported].flat()) assert.ok(section in doc, `${table} is exported under ${section}, which the file lacks`);
      }
    });

    it('docs/lifecycle.md names every table with its fate', () => {
      const doc = readFileSync(join(projectRoot, 'docs', 'lifecycle.md'), 'utf8');
      const missing = t.accountData.tables().map((d) => d.table).filter((table) => !doc.includes(`\`${table}\``));
      assert.deepEqual(missing, []);
    });

    it('delete: step-up, 202, other sessions out, only the grace routes, subscribers see unavailable', async () => {
      const w = await world();
      const { alice, bob, carol } = w;
      const phone2 = await logInAs(t.client, alice);
      expectProblem(await t.client.as(alice, 'DELETE', `${API}/account`), 403, 'step_up_required');
      // Before deciding, the terms this server keeps (its ACCOUNT_GRACE_DAYS, USERNAME_HOLD_DAYS); no session, no answer.
      const terms = await s.get(alice, '/account/deletion-terms');
      assert.equal(terms.status, 200);
      assert.deepEqual(terms.body, { grace_days: 30, username_hold_days: 365, schema_version: 1 });
      assert.equal((await t.client.call('GET', `${API}/account/deletion-terms`)).status, 401);
      const bobSignalsBefore = (await s.signals(bob)).length;
      const deletion = await deleteAccount(alice);
      assert.equal(deletion.status, 'deleted');
      assert.equal(Date.parse(deletion.purge_at) - Date.parse(deletion.deleted_at), 30 * DAY);

      // The other device is signed out; this one reaches only the grace routes.
      assert.equal((await t.client.as(phone2, 'GET', `${API}/me`)).status, 401);
      const me = await s.get(alice, '/me');
      assert.equal(me.status, 200);
      assert.equal(me.body.status, 'deleted');
      assert.equal(me.body.deleted_at, deletion.deleted_at);
      assert.equal(me.body.purge_at, deletion.purge_at);
      assert.deepEqual((await s.get(alice, '/account/deletion-terms')).body, terms.body, 'the grace screen reads them too');
      for (const [method, path] of [['GET', '/me/fields'], ['GET', '/profiles'], ['GET', '/contacts'], ['GET', '/auth/sessions'], ['GET', '/events']] as const) {
        expectProblem(await t.client.as(alice, method, `${API}${path}`), 403, 'account_deleted');
      }
      expectProblem(await t.client.as(alice, 'PATCH', `${API}/me`, { body: { display_name: 'x' }, headers: { 'if-match': `"${me.body.version}"` } }), 403, 'account_deleted');
      expectProblem(await t.client.as(alice, 'DELETE', `${API}/account`, { headers: await withStepUp(alice) }), 403, 'account_deleted');

      // Public page, share link, new subscriptions: gone, the same as nobody.
      expectProblem(await t.client.call('GET', `${API}/public/${alice.username}`), 404, 'profile_not_found');
      expectProblem(await t.client.call('GET', `${API}/share-links/resolve?token=${w.link.token}`), 410, 'share_link_gone');
      const dave = await s.person('dave');
      expectProblem(await s.subscribe(dave, alice), 404, 'account_not_found');
      const check = await t.client.call('POST', `${API}/auth/username/check`, { body: { username: alice.username } });
      assert.equal(check.body.available, false);

      // Bob (active) and Carol (pending) see unavailable; Bob's card is gone for now; both were told.
      const bobsView = await s.get(bob, `/contacts/${w.contactId}`);
      assert.equal(bobsView.body.status, 'unavailable');
      assert.equal(bobsView.body.card_updated_at, null);
      expectProblem(await s.get(bob, `/contacts/${w.contactId}/card`), 410, 'account_deleted');
      expectProblem(await s.get(bob, `/contacts/${w.contactId}/vcard`), 410, 'account_deleted');
      assert.ok(!String((await t.client.as(bob, 'GET', `${API}/contacts/vcard`)).body ?? '').includes('BEGIN:VCARD'), 'a deleted owner\'s card in the address-book file');
      assert.equal((await s.get(carol, `/contacts/${w.carolRequest.id}`)).body.status, 'unavailable');
      const bobSignals = (await s.signals(bob)).slice(bobSignalsBefore);
      assert.deepEqual(bobSignals, [['contacts.changed', '/contacts']]);
      assert.ok((await s.signals(carol)).some(([kind]) => kind === 'contacts.changed'));
      // Bob, whom Alice subscribes to, still sees her as a subscriber: her side is only paused.
      assert.equal((await s.get(bob, `/subscriptions/${w.aliceToBob}`)).body.status, 'active');

      // Signing in again during the grace works; export and logout too.
      const again = await logInAs(t.client, alice);
      assert.equal((await s.get(again, '/me')).body.status, 'deleted');
      assert.equal((await exportOf(again)).body.account.status, 'deleted');
      assert.equal((await t.client.as(again, 'POST', `${API}/auth/logout`)).status, 204);
    });

    it('undelete restores everything exactly; subscribers see the card again and are told', async () => {
      const w = await world();
      const { alice, bob } = w;
      expectProblem(await t.client.as(alice, 'POST', `${API}/account/undelete`), 409, 'account_not_deleted');
      const before = (await exportOf(alice)).body;
      const cardBefore = await s.get(bob, `/contacts/${w.contactId}/card`);
      t.clock.advance(1000);
      await deleteAccount(alice);
      const bobSignalsBefore = (await s.signals(bob)).length;
      t.clock.advance(1000);
      const restored = await t.client.as(alice, 'POST', `${API}/account/undelete`);
      assert.equal(restored.status, 200, JSON.stringify(restored.body));
      assert.equal(restored.body.status, 'active');
      assert.equal(restored.body.deleted_at, null);
      const afterwards = (await exportOf(alice)).body;
      // Everything but the moment of export, the account's version, the sessions the deletion
      // revoked, the log lines deletion and restoring wrote, and when the passkey last signed
      // (each step-up uses it) (docs/lifecycle.md).
      const comparable = (doc: any) => ({
        ...doc,
        exported_at: undefined,
        account: { ...doc.account, version: undefined },
        passkeys: doc.passkeys.map((p: any) => ({ ...p, last_used_at: undefined })),
        sessions: undefined,
        security_log: undefined,
      });
      assert.deepEqual(comparable(afterwards), comparable(before));
      assert.deepEqual(afterwards.security_log.slice(0, 2).map((e: any) => e.kind), ['account_restored', 'account_deleted']);
      assert.deepEqual((await s.signals(bob)).slice(bobSignalsBefore), [['contacts.changed', '/contacts']]);
      assert.equal((await s.get(bob, `/contacts/${w.contactId}`)).body.status, 'active');
      const cardAfter = await s.get(bob, `/contacts/${w.contactId}/card`);
      assert.equal(cardAfter.status, 200);
      assert.deepEqual(cardAfter.body, cardBefore.body);
      assert.equal((await t.client.call('GET', `${API}/public/${alice.username}`)).status, 200);
      assert.equal((await t.client.call('GET', `${API}/share-links/resolve?token=${w.link.token}`)).status, 200);
      assert.equal((await s.get(alice, '/me/fields')).status, 200);
    });

    it('purge: after the grace everything goes, subscriptions end both ways, the name is held, then freed', async () => {
      const w = await world();
      const { alice } = w;
      let { bob, carol } = w;
      await t.client.as(bob, 'PUT', `${API}/contacts/${w.contactId}/annotation`, { body: { note: 'met at the conference', labels: ['work'] } });
      await t.client.as(alice, 'PUT', `${API}/contacts/${w.aliceToBob}/annotation`, { body: { note: 'Alice wrote this', labels: [] } });
      const photo = await upload(t, alice, await sharp({ create: { width: 64, height: 64, channels: 3, background: '#345' } }).jpeg().toBuffer());
      assert.equal(photo.status, 201);
      await deleteAccount(alice);

      // Not before the grace ends. (Tokens expire meanwhile: Bob and Carol sign in again.)
      t.clock.advance(30 * DAY - 1000);
      const purgedAt = async () => (await t.store.handle.db.selectFrom('accounts').select('purged_at').where('id', '=', alice.accountId).executeTakeFirstOrThrow()).purged_at;
      await t.services.purge.run(t.clock.now());
      assert.equal(await purgedAt(), null);
      bob = await logInAs(t.client, bob);
      carol = await logInAs(t.client, carol);
      assert.equal((await s.get(bob, `/contacts/${w.contactId}`)).body.status, 'unavailable');

      t.clock.advance(2000);
      const bobBefore = (await s.signals(bob)).length;
      const carolBefore = (await s.signals(carol)).length;
      const run = await t.services.purge.run(t.clock.now());
      assert.ok(run.purged >= 1);
      assert.equal(run.failed, 0);
      assert.notEqual(await purgedAt(), null);
      assert.equal((await t.services.purge.run(t.clock.now())).purged, 0, 'purged once');

      // Bob (subscriber) and Carol (pending) see ended; Bob (whom Alice subscribed to) sees ended too; each told once.
      assert.equal((await s.get(bob, `/contacts/${w.contactId}`)).body.status, 'ended');
      assert.equal((await s.get(carol, `/contacts/${w.carolRequest.id}`)).body.status, 'ended');
      expectProblem(await s.get(bob, `/contacts/${w.contactId}/card`), 403, 'contact_not_active');
      assert.equal((await s.get(bob, `/subscriptions/${w.aliceToBob}`)).body.status, 'ended');
      const bobNew = (await s.signals(bob)).slice(bobBefore).map(([kind]) => kind).sort();
      assert.deepEqual(bobNew, ['contacts.changed', 'subscriptions.changed']);
      assert.deepEqual((await s.signals(carol)).slice(carolBefore).map(([kind]) => kind), ['contacts.changed']);
      // Bob keeps his own note about her; hers about him is gone.
      assert.equal((await s.get(bob, `/contacts/${w.contactId}/annotation`)).body.note, 'met at the conference');

      // Nothing of Alice remains but the tombstone.
      const db = t.store.handle.db;
      for (const table of ['fields', 'photos', 'profiles', 'profile_exposures', 'passkeys', 'totp_authenticators', 'recovery_keys', 'sessions', 'security_log', 'events', 'share_links']) {
        const { n } = await (db as any).selectFrom(table).select((eb: any) => eb.fn.countAll().as('n')).where(table === 'share_links' ? 'owner_id' : 'account_id', '=', alice.accountId).executeTakeFirstOrThrow();
        assert.equal(Number(n), 0, `${table} still holds rows of the purged account`);
      }
      assert.equal(Number(((await db.selectFrom('annotations').select((eb: any) => eb.fn.countAll().as('n')).where('author_id', '=', alice.accountId).executeTakeFirstOrThrow()) as any).n), 0);
      const tomb = await db.selectFrom('accounts').selectAll().where('id', '=', alice.accountId).executeTakeFirstOrThrow();
      assert.equal(tomb.display_name, null);
      assert.equal(tomb.username, tomb.username_canonical);
      assert.equal((await t.client.logIn(alice.authenticator)).status, 401, 'the passkey is gone');

      // The name stays taken for the hold, then anyone may have it.
      const check = () => t.client.call('POST', `${API}/auth/username/check`, { body: { username: alice.username } });
      assert.equal((await check()).body.available, false);
      t.clock.advance(365 * DAY);
      assert.ok((await t.services.purge.run(t.clock.now())).released >= 1);
      bob = await logInAs(t.client, bob);
      assert.equal((await check()).body.available, true);
      const newcomer = await t.client.signUp(alice.username);
      assert.notEqual(newcomer.accountId, alice.accountId);
      // Bob's ended entry stays, no longer showing the name someone else now holds.
      assert.equal((await s.get(bob, `/contacts/${w.contactId}`)).body.owner.username, '(deleted account)');
    });
  });
}
