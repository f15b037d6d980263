// The web app end to end in Chromium: sign-up, logout, passkey login, a second passkey, an
// authenticator app, the recovery key, recovery on a fresh device, and identity fields.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import * as OTPAuth from 'otpauth';
import { startE2e } from '../helpers/browser.js';
import type { Device, E2e } from '../helpers/browser.js';

const SESSION_IN_INDEXEDDB = `new Promise((resolve, reject) => {
  const open = indexedDB.open('vid');
  open.onsuccess = () => {
    const get = open.result.transaction('device').objectStore('device').get('session');
    get.onsuccess = () => resolve(get.result !== undefined);
    get.onerror = () => reject(get.error);
  };
})`;

describe('web app: account, security, recovery, fields (Chromium)', { timeout: 120_000 }, () => {
  let e2e: E2e;
  let phone: Device;
  const username = `ada${Date.now().toString(36)}`;
  let secret = '';
  let recoveryKey = '';

  before(async () => {
    e2e = await startE2e();
    phone = await e2e.device('phone', { width: 360, height: 740 });
  });
  after(async () => {
    await e2e?.close();
  });

  it('serves the app with a strict CSP and falls back to it for deep links', async () => {
    const root = await fetch(`${e2e.origin}/`);
    assert.equal(root.status, 200);
    const csp = root.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.equal(root.headers.get('cache-control'), 'no-cache');
    const html = await root.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    const deep = await fetch(`${e2e.origin}/security`);
    assert.equal(deep.status, 200);
    assert.equal(await deep.text(), html);
    const asset = html.match(/src="(\/assets\/[^"]+\.js)"/)?.[1];
    assert.ok(asset);
    const js = await fetch(`${e2e.origin}${asset}`);
    assert.equal(js.status, 200);
    assert.match(js.headers.get('cache-control') ?? '', /immutable/);
    const api = await fetch(`${e2e.origin}/api/v1/nope`);
    assert.equal(api.status, 404);
    assert.match(api.headers.get('content-type') ?? '', /problem\+json/);
    assert.equal((await fetch(`${e2e.origin}/assets/missing.js`)).status, 404);
  });

  it('signs up with a live username check and a passkey', async () => {
    const { page } = phone;
    await page.goto(`${e2e.origin}/`);
    await phone.view('welcome');
    await phone.shot('01-welcome');
    // By keyboard: type the name, then Enter submits the form.
    await page.getByLabel('Choose a username').focus();
    await page.keyboard.type(username);
    await page.getByText(`“${username}” is available.`).waitFor();
    await phone.shot('02-signup-available');
    await page.keyboard.press('Enter');
    await phone.view('account');
    assert.equal(await page.getByTestId('username').textContent(), username);
    assert.equal((await phone.credentials()).filter((c) => c.isResidentCredential).length, 1);
    // The device key is a non-extractable CryptoKey in IndexedDB.
    const key = await page.evaluate(`new Promise((resolve, reject) => {
      const open = indexedDB.open('vid');
      open.onsuccess = () => {
        const get = open.result.transaction('device').objectStore('device').get('key');
        get.onsuccess = () => resolve({ type: String(get.result.privateKey.constructor.name), extractable: get.result.privateKey.extractable });
        get.onerror = () => reject(get.error);
      };
    })`);
    assert.deepEqual(key, { type: 'CryptoKey', extractable: false });
    await phone.shot('03-account');
  });

  it('reports a taken username while typing', async () => {
    const other = await e2e.device('other');
    await other.page.goto(`${e2e.origin}/`);
    await other.page.getByLabel('Choose a username').fill(username.toUpperCase());
    await other.page.getByText('That username is taken.').waitFor();
    await other.context.close();
  });

  it('logs out and signs in again with the passkey through autofill (conditional mediation)', async () => {
    const { page, cdp } = phone;
    // The welcome page asks for a passkey with mediation "conditional" as it opens, and the virtual
    // authenticator with automatic presence answers it as a person picking the autofill entry
    // would. Off while signing out, so the signed-out page stays to be seen.
    await cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId: phone.authenticatorId, enabled: false });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await phone.view('welcome');
    assert.equal(await page.evaluate(SESSION_IN_INDEXEDDB), false);
    assert.equal(await page.getByLabel('Username', { exact: true }).getAttribute('autocomplete'), 'username webauthn');
    // Away first: the signed-out page's own conditional request is still pending, and presence
    // switched on under it would answer it too, a second sign-in beside the reloaded page's.
    await page.goto('about:blank');
    await cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId: phone.authenticatorId, enabled: true });
    await page.goto(`${e2e.origin}/`);
    await phone.view('account');
    assert.equal(await page.evaluate('document.body.dataset.login'), 'autofill');
    assert.equal(await page.getByTestId('username').textContent(), username);
    // A reload keeps the session (tokens and key in IndexedDB).
    await page.reload();
    await phone.view('account');
  });

  it('signs in with the button where autofill is not offered', async () => {
    const device = await e2e.device('no-autofill');
    await device.context.addInitScript('PublicKeyCredential.isConditionalMediationAvailable = async () => false;');
    await device.page.goto(`${e2e.origin}/`);
    await device.view('welcome');
    await device.page.getByLabel('Choose a username').fill(`${username}b`);
    await device.page.getByRole('button', { name: 'Create account with a passkey' }).click();
    await device.view('account');
    await device.page.getByRole('button', { name: 'Sign out' }).click();
    await device.view('welcome');
    await device.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await device.view('account');
    assert.equal(await device.page.evaluate('document.body.dataset.login'), 'button');
    await device.page.getByRole('button', { name: 'Sign out' }).click();
    await device.view('welcome');
    await device.context.close();
  });

  it('adds a second passkey (with step-up) on a security key', async () => {
    const { page, cdp } = phone;
    await page.getByRole('link', { name: 'Security' }).click();
    await phone.view('security');
    await page.locator('#passkeys li').first().waitFor();
    assert.equal(await page.locator('#passkeys li').count(), 1);
    // The step-up signs with the phone's passkey; the new one is made by a security key (the
    // phone's authenticator would refuse: its passkey is in excludeCredentials). Swap them once
    // the step-up is done, i.e. when the begin request leaves.
    await page.route('**/api/v1/auth/methods/passkeys/begin', async (route) => {
      await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: phone.authenticatorId });
      const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'usb', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
      });
      phone.authenticatorId = authenticatorId;
      await route.continue();
    });
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.locator('#passkeys li').nth(1).waitFor();
    await page.unroute('**/api/v1/auth/methods/passkeys/begin');
    assert.equal(await page.locator('#passkeys li').count(), 2);
    assert.equal((await phone.credentials()).length, 1, 'the security key holds the new passkey');
  });

  it('enrols an authenticator app from the QR code page with a code computed here', async () => {
    const { page } = phone;
    await page.getByRole('button', { name: 'Add an authenticator app' }).click();
    await page.locator('#totp-secret').waitFor();
    assert.equal(await page.locator('.qr svg').count(), 1);
    secret = (await page.locator('#totp-secret').textContent())!.trim();
    await phone.shot('04-security-totp-qr');
    const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
    await page.getByLabel('First code the app shows').fill(code);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.locator('#totps li', { hasText: 'Active since' }).waitFor();
    await phone.shot('05-security');
  });

  it('downloads the recovery key', async () => {
    const { page } = phone;
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download recovery key' }).click()]);
    assert.equal(download.suggestedFilename(), 'vid-recovery-key.txt');
    const text = readFileSync((await download.path())!, 'utf8');
    recoveryKey = text.match(/[0-9A-Z]{4}(?:-[0-9A-Z]{4}){7}/)?.[0] ?? '';
    assert.ok(recoveryKey, `a recovery key in ${JSON.stringify(text)}`);
  });

  it('shows the recent activity in words, newest first, with device and place', async () => {
    const { page } = phone;
    const activity = page.locator('#activity li');
    await page.locator('#activity li[data-kind="recovery_key_downloaded"]').waitFor();
    const kinds = await activity.evaluateAll((items) => items.map((li) => li.getAttribute('data-kind')));
    assert.deepEqual(kinds.slice(0, 4), ['recovery_key_downloaded', 'totp_confirmed', 'totp_added', 'passkey_added']);
    assert.equal(kinds.at(-1), 'account_created', 'the sign-up is the oldest');
    assert.equal(await activity.first().locator('strong').textContent(), 'Recovery key downloaded');
    const meta = (await activity.first().textContent()) ?? '';
    assert.match(meta, /Chrom(e|ium) \d+ on Linux/, 'the device as a person knows it');
    assert.match(meta, /127\.0\.0\.1/);
    // The shot without the passing "downloaded" message over the list.
    await page.waitForTimeout(60); // announce() writes its text 30 ms late
    await page.evaluate(() => { document.getElementById('status')!.textContent = ''; });
    await phone.shot('05b-security-activity');
  });

  it('edits identity fields with forms built from /field-types', async () => {
    const { page } = phone;
    await page.getByRole('link', { name: 'Fields' }).click();
    await phone.view('fields');
    // A phone number, normalised by the server.
    await page.getByLabel('Type').selectOption('phone');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByLabel('Phone', { exact: true }).fill('030 1234567');
    await page.getByLabel('Label (optional)').fill('Home');
    await page.getByLabel(/^Country/).fill('de');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#fields li[data-type="phone"]', { hasText: '+49 30 1234567' }).waitFor();
    // A postal address with a server-side error shown next to the form, then fixed.
    await page.getByLabel('Type').selectOption('postal_address');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByLabel(/^Street lines/).fill('10 Downing Street');
    await page.getByLabel(/^Locality/).fill('London');
    await page.getByLabel(/^Postal code/).fill('nope');
    await page.getByLabel(/^Country/).fill('GB');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#field-editor [aria-invalid="true"]').first().waitFor();
    await phone.shot('06-fields-error');
    await page.getByLabel(/^Postal code/).fill('sw1a 2aa');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#fields li[data-type="postal_address"]', { hasText: 'SW1A 2AA' }).waitFor();
    // Edit the phone's label.
    await page.getByRole('button', { name: 'Edit Phone Home' }).click();
    await page.getByLabel('Label (optional)').fill('Work');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#fields li[data-type="phone"]', { hasText: 'Work' }).waitFor();
    await phone.shot('07-fields');
  });

  it('recovers the account on a fresh device with the recovery key and an app code', async () => {
    // The phone watches its Security screen: the recovery must appear there by itself.
    await phone.page.getByRole('link', { name: 'Security' }).click();
    await phone.view('security');
    await phone.page.locator('#activity li').first().waitFor();
    await phone.page.locator('body[data-stream="streaming"]').waitFor({ state: 'attached' });
    const fresh = await e2e.device('fresh');
    const { page } = fresh;
    await page.goto(`${e2e.origin}/recover`);
    await fresh.view('recover');
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Recovery key', { exact: true }).fill(recoveryKey.toLowerCase());
    // The confirmation spent this step's code: the next step's is accepted (one step of drift).
    const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + 30_000 });
    await page.getByLabel(/^Code from your authenticator app/).fill(code);
    await fresh.shot('08-recover');
    await page.getByRole('button', { name: 'Recover and create a passkey' }).click();
    await fresh.view('account');
    assert.equal(await page.getByTestId('username').textContent(), username);
    assert.equal((await fresh.credentials()).length, 1);
    await page.getByRole('link', { name: 'Security' }).click();
    await page.locator('#passkeys li').nth(2).waitFor();
    await page.locator('#activity li[data-kind="recovery_succeeded"]').first().waitFor();
    await fresh.shot('09-security-activity-desktop');
    // Ten entries a page: three more downloads make eleven, the oldest behind "Show older".
    for (let i = 0; i < 3; i++) {
      await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download recovery key' }).click()]);
      await page.getByText('Recovery key downloaded. Keep it offline.').waitFor();
      await page.evaluate(() => { document.getElementById('status')!.textContent = ''; });
    }
    await page.getByRole('button', { name: 'Show older' }).waitFor();
    assert.equal(await page.locator('#activity li').count(), 10);
    assert.equal(await page.locator('#activity li').last().getAttribute('data-kind'), 'signed_in');
    await page.getByRole('button', { name: 'Show older' }).click();
    await page.locator('#activity li[data-kind="account_created"]').waitFor();
    assert.equal(await page.locator('#activity li').count(), 11);
    assert.equal(await page.getByRole('button', { name: 'Show older' }).isHidden(), true, 'nothing older');
    // No reload on the phone: the signals of the recovery redrew its activity.
    await phone.page.locator('#activity li[data-kind="recovery_succeeded"]').first().waitFor();
    const newest = await phone.page.locator('#activity li').evaluateAll((items) => items.slice(0, 2).map((li) => li.getAttribute('data-kind')));
    assert.deepEqual(newest, ['passkey_added', 'recovery_succeeded'], 'the recovery, then its new passkey');
  });
});
