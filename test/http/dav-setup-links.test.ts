// PRODUCT §9, decision 300: setup links carry an address-book password to a phone in one scan.
// Made behind a step-up with an Idempotency-Key; the link's token rides in the URL's fragment and
// a short code says the same; used once, by the token or the code as people type it, within ten
// minutes; the answer (JSON with DAVx5's hand-over, or the configuration profile for a form post)
// carries a password that signs in to /dav/; the owner is signalled when the phone uses the link
// and again at its first sync; a used, expired, withdrawn or unknown link is the same 410; a
// refused form post goes back to the phone's page; a password over the limit uses nothing.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SETUP_LINK_TTL_MS } from '../../src/modules/dav-setup-links/service.js';
import { dav } from '../helpers/address-book.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import type { Device } from '../helpers/client.js';
import { parsePlist } from '../helpers/plist.js';
import type { Plist } from '../helpers/plist.js';
import { expectProblem } from '../helpers/problem.js';
import { API, social } from '../helpers/social.js';
import { STEP_UP_HEADER, stepUp } from '../helpers/step-up.js';

const IPHONE_SAFARI = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
const ANDROID_CHROME = 'Mozilla/5.0 (Linux; Android 15; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
const IOS_CONTACTS = 'iOS/18.1 (22B83) dataaccessd/1.0';
const FORM = 'application/x-www-form-urlencoded';

for (const backend of backends) {
  describe(`dav setup links [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: ReturnType<typeof social>;
    before(async () => {
      t = await startTestApp(backend);
      s = social(t);
    });
    after(() => t.close());

    async function makeLink(device: Device, body: object = {}) {
      const res = await t.client.as(device, 'POST', `${API}/dav-setup-links`, {
        body,
        headers: { 'idempotency-key': randomUUID(), [STEP_UP_HEADER]: await stepUp(t.client, device) },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const token = new URL(res.body.url).hash.slice(1);
      return { ...res.body, token } as { id: string; url: string; code: string; expires_at: string; token: string };
    }
    const redeem = (body: object, userAgent = ANDROID_CHROME) => t.client.call('POST', `${API}/dav-setup-links/redeem`, { body, headers: { 'user-agent': userAgent } });
    const status = async (device: Device, id: string) => (await s.get(device, `/dav-setup-links/${id}`)).body;
    const propfind = (username: string, password: string, userAgent = IOS_CONTACTS) =>
      dav(t.baseUrl, { username, password, tokenId: '', accountId: '' }, 'PROPFIND', `/dav/principals/${username}/`, { depth: '0', headers: { 'user-agent': userAgent } });
    const davSignals = async (device: Device) => (await s.signals(device)).filter(([kind]) => kind === 'dav-tokens.changed').length;

    it('makes a link behind a step-up and an Idempotency-Key: a token in the fragment, a code of eight, ten minutes', async () => {
      const alice = await s.person('setup');
      expectProblem(await t.client.as(alice, 'POST', `${API}/dav-setup-links`, { body: {}, headers: { [STEP_UP_HEADER]: await stepUp(t.client, alice) } }), 400, 'idempotency_key_required');
      expectProblem(await t.client.as(alice, 'POST', `${API}/dav-setup-links`, { body: {}, headers: { 'idempotency-key': randomUUID() } }), 403, 'step_up_required');
      const link = await makeLink(alice, { label: 'Alice’s iPhone' });
      assert.match(link.url, /^https?:\/\/[^/]+\/p\/#[A-Za-z0-9_-]{32}$/);
      assert.match(link.code, /^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
      assert.equal(Date.parse(link.expires_at) - t.clock.now(), SETUP_LINK_TTL_MS);
      const view = await status(alice, link.id);
      assert.deepEqual([view.state, view.label, view.dav_token_id, view.used_at], ['waiting', 'Alice’s iPhone', null, null]);
      assert.equal('code' in view || 'url' in view || 'token' in view, false, 'the link is shown once');
    });

    it('hands a working password to the phone once, and tells the owner when it is used and when the phone first syncs', async () => {
      const alice = await s.person('setup');
      const link = await makeLink(alice);
      const before = await davSignals(alice);
      // A messenger's preview or a browser's prefetch loads the page (never the fragment): nothing is used.
      for (const path of ['/p/', '/p']) await (await fetch(`${t.baseUrl}${path}`, { headers: { 'user-agent': 'WhatsApp/2.24 A', accept: 'text/html' } })).arrayBuffer();
      assert.equal((await status(alice, link.id)).state, 'waiting');
      const res = await redeem({ token: link.token });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const phone = res.body;
      assert.equal(phone.label, 'Android phone', 'named after the phone that used it');
      assert.equal(phone.username, alice.username);
      assert.equal(await davSignals(alice), before + 1, 'used: signalled');

      // DAVx5's hand-over: its login screen reads server, user and password from the URI.
      const handover = new URL(phone.davx5_url.replace(/^carddav:/, 'http:').replace(/^davx5:/, 'https:'));
      assert.equal(decodeURIComponent(handover.username), alice.accountId);
      assert.equal(decodeURIComponent(handover.password), phone.secret);
      assert.equal(handover.pathname, '/dav/');
      assert.match(phone.android_intent_url, /^intent:\/\/.+#Intent;scheme=(davx5|carddav);package=at\.bitfire\.davdroid;end$/);

      const used = await status(alice, link.id);
      assert.deepEqual([used.state, used.dav_token_id], ['used', phone.id]);
      const listed = (await s.get(alice, '/dav-tokens')).body.data.find((p: { id: string }) => p.id === phone.id);
      assert.equal(listed.last_used_at, null);

      // A second use, by token or by code, is the same 410.
      expectProblem(await redeem({ token: link.token }), 410, 'setup_link_gone');
      expectProblem(await redeem({ code: link.code }), 410, 'setup_link_gone');

      // The first sync, with the account id the hand-over carries: the owner learns it live.
      assert.equal((await propfind(alice.accountId, phone.secret)).status, 207);
      assert.equal(await davSignals(alice), before + 2, 'first sync: signalled');
      const synced = (await s.get(alice, '/dav-tokens')).body.data.find((p: { id: string }) => p.id === phone.id);
      assert.notEqual(synced.last_used_at, null);
      t.clock.advance(120_000);
      assert.equal((await propfind(alice.accountId, phone.secret)).status, 207);
      assert.equal(await davSignals(alice), before + 2, 'later syncs are not news');
    });

    it('takes the code as people type it, and refuses what cannot be a code in words', async () => {
      const alice = await s.person('setup');
      const link = await makeLink(alice);
      const typed = ` ${link.code.toLowerCase().replace('-', ' ').replace(/0/g, 'o').replace(/1/g, 'l')} `;
      const res = await redeem({ code: typed });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      expectProblem(await redeem({ code: 'K7QX-M2P' }), 400, 'validation_failed');
      expectProblem(await redeem({ code: 'UUUU-UUUU' }), 400, 'validation_failed');
      expectProblem(await redeem({ token: link.token, code: link.code }), 400, 'validation_failed');
      expectProblem(await redeem({}), 400, 'validation_failed');
      expectProblem(await redeem({ token: 'not a token' }), 410, 'setup_link_gone');
    });

    it('ends after ten minutes, or when withdrawn: the same 410 as an unknown link', async () => {
      const alice = await s.person('setup');
      const late = await makeLink(alice);
      const withdrawn = await makeLink(alice);
      assert.equal((await t.client.as(alice, 'DELETE', `${API}/dav-setup-links/${withdrawn.id}`)).status, 204);
      expectProblem(await t.client.as(alice, 'DELETE', `${API}/dav-setup-links/${withdrawn.id}`), 404, 'setup_link_not_found');
      expectProblem(await redeem({ token: withdrawn.token }), 410, 'setup_link_gone');
      t.clock.advance(SETUP_LINK_TTL_MS);
      expectProblem(await redeem({ token: late.token }), 410, 'setup_link_gone');
      expectProblem(await redeem({ code: late.code }), 410, 'setup_link_gone');
      // The session's access token ended with the link: a new sign-in reads what became of it.
      const signedIn = await t.client.logIn(alice.authenticator);
      const again = { ...alice, key: signedIn.key, tokens: signedIn.body };
      assert.equal((await status(again, late.id)).state, 'expired');
      // Another account's link is not yours to read or withdraw.
      const bob = await s.person('setup');
      expectProblem(await s.get(bob, `/dav-setup-links/${late.id}`), 404, 'setup_link_not_found');
    });

    it('answers a form post with the configuration profile, whose password signs in; a refused one goes back to the page', async () => {
      const alice = await s.person('setup');
      const link = await makeLink(alice, { label: 'Work iPad' });
      const post = (body: string, type = FORM) => fetch(`${t.baseUrl}${API}/dav-setup-links/profile`, {
        method: 'POST', redirect: 'manual', body, headers: { 'content-type': type, 'user-agent': IPHONE_SAFARI, accept: 'text/html' },
      });
      const res = await post(new URLSearchParams({ token: link.token }).toString());
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/x-apple-aspen-config');
      assert.match(res.headers.get('content-disposition') ?? '', /^attachment; .*filename\*=UTF-8''VID%20contacts\.mobileconfig$/);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const profile = parsePlist(await res.text()) as Record<string, Plist>;
      const carddav = (profile.PayloadContent as Array<Record<string, Plist>>)[0]!;
      assert.equal(carddav.CardDAVUsername, alice.accountId);
      assert.equal(String(carddav.CardDAVPrincipalURL), `${t.client.publicOrigin}/dav/principals/${alice.accountId}/`);
      assert.equal((await propfind(alice.accountId, String(carddav.CardDAVPassword))).status, 207);
      const phones = (await s.get(alice, '/dav-tokens')).body.data as Array<{ label: string }>;
      assert.deepEqual(phones.map((p) => p.label), ['Work iPad']);

      const again = await post(new URLSearchParams({ token: link.token }).toString());
      assert.equal(again.status, 303);
      assert.equal(again.headers.get('location'), '/p/?problem=setup_link_gone');
      const typo = await post(new URLSearchParams({ code: 'nope' }).toString());
      assert.equal(typo.headers.get('location'), '/p/?problem=validation_failed');
      // A program posting JSON gets the problem itself.
      expectProblem(await t.client.call('POST', `${API}/dav-setup-links/profile`, { body: { token: link.token } }), 410, 'setup_link_gone');
    });

    it('uses nothing when the account holds ten passwords already', async () => {
      const alice = await s.person('setup');
      for (let n = 0; n < 10; n++) assert.equal((await redeem({ token: (await makeLink(alice)).token })).status, 201);
      const link = await makeLink(alice);
      expectProblem(await redeem({ token: link.token }), 409, 'dav_token_limit');
      assert.equal((await status(alice, link.id)).state, 'waiting', 'the link still works once a password is revoked');
      const first = (await s.get(alice, '/dav-tokens')).body.data[0].id;
      assert.equal((await t.client.as(alice, 'DELETE', `${API}/dav-tokens/${first}`)).status, 204);
      assert.equal((await redeem({ token: link.token })).status, 201);
    });

    it('is refused for an account that was deleted meanwhile, like an unknown link', async () => {
      const alice = await s.person('setup');
      const link = await makeLink(alice);
      const del = await t.client.as(alice, 'DELETE', `${API}/account`, { headers: { [STEP_UP_HEADER]: await stepUp(t.client, alice), 'idempotency-key': randomUUID() } });
      assert.ok(del.status === 202 || del.status === 200 || del.status === 204, JSON.stringify(del.body));
      expectProblem(await redeem({ token: link.token }), 410, 'setup_link_gone');
    });
  });
}
