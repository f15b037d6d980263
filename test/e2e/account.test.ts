// The account half of the web app as a new user meets it on a phone, in Chromium: sign-up with
// the live username check, My country, details (a UK and a US phone formatted as typed, a UK
// address chosen by country name, edited in place), a passkey renamed, the authenticator app and
// the recovery key, the server stopped and restarted mid-session (nothing lost, nothing blank),
// and deletion and restore. Every main screen is saved at 390 px and 1280 px, light and dark,
// and checked by axe-core (device.screens).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import * as OTPAuth from 'otpauth';
import { startE2e } from '../helpers/browser.js';
import type { Device, E2e } from '../helpers/browser.js';

const OFFLINE = 'You’re offline, trying again.';
/** What a save that could not reach the server says (ui/form.tsx). */
const NOT_SENT = 'Not sent: the server cannot be reached. Keep this screen open and it is sent as soon as the server answers again.';

describe('web app: the account half (Chromium)', { timeout: 300_000 }, () => {
  let e2e: E2e;
  let phone: Device;
  const username = `ada${Date.now().toString(36)}`;

  before(async () => {
    // Not the defaults (30 days, a year): the screens must say what this server does.
    e2e = await startE2e({ ACCOUNT_GRACE_DAYS: '14', USERNAME_HOLD_DAYS: '730' });
    phone = await e2e.device('phone', { width: 390, height: 844 });
  });
  after(async () => {
    await e2e?.close();
  });

  /** A place in the navigation: the bar on a phone, or the "More" list. */
  async function go(device: Device, name: string, view: string): Promise<void> {
    const nav = device.page.locator('#nav');
    const link = nav.getByRole('link', { name, exact: true });
    if (!(await link.isVisible())) await nav.getByRole('button', { name: 'More' }).click();
    await link.click();
    await device.view(view);
  }

  it('serves the app with a strict CSP, an app manifest and icons', async () => {
    const root = await fetch(`${e2e.origin}/`);
    assert.equal(root.status, 200);
    const csp = root.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    const html = await root.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    assert.match(html, /<link rel="manifest" href="\/manifest.webmanifest"/);
    const manifest = await (await fetch(`${e2e.origin}/manifest.webmanifest`)).json() as { name: string; icons: { src: string; sizes: string }[] };
    assert.equal(manifest.name, 'VID');
    for (const icon of [...manifest.icons.map((i) => i.src), '/favicon.svg', '/favicon-32.png', '/apple-touch-icon.png']) {
      const answer = await fetch(`${e2e.origin}${icon}`);
      assert.equal(answer.status, 200, icon);
      assert.match(answer.headers.get('content-type') ?? '', /^image\//, icon);
    }
    const deep = await fetch(`${e2e.origin}/security`);
    assert.equal(await deep.text(), html, 'deep links answer the app');
  });

  it('signs up with a live username check that says the one reason a name cannot be had', async () => {
    const { page } = phone;
    await page.goto(`${e2e.origin}/`);
    await phone.view('welcome');
    await phone.screens('01-welcome');
    const box = page.getByLabel('Choose a username');
    await box.fill('ab');
    await page.getByText('Too short: use at least 3 characters.').waitFor();
    await box.fill('ab..c');
    await page.getByText('Put a letter or digit between dots, dashes and underscores.').waitFor();
    await box.fill(username);
    await page.getByText(`“${username}” is available.`).waitFor();
    await page.keyboard.press('Enter');
    await phone.view('account');
    assert.equal(await page.getByTestId('username').textContent(), username);
    assert.equal((await phone.credentials()).filter((c) => c.isResidentCredential).length, 1);
    await phone.screens('02-account');
  });

  it('sets the display name (the server’s limit is the box’s) and My country by name', async () => {
    const { page } = phone;
    const name = page.getByLabel('Display name');
    assert.equal(await name.getAttribute('maxlength'), '64');
    await name.fill('Ada Lovelace');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('heading', { name: 'Ada Lovelace' }).waitFor();
    const country = page.getByLabel('My country');
    await country.selectOption({ label: 'United Kingdom' });
    await page.getByText('Country saved.').waitFor();
    assert.equal(await country.inputValue(), 'GB');
    // The note sits in the header's own row, above the page: it covers no button.
    const note = await page.locator('#status').boundingBox();
    const content = await page.locator('main').boundingBox();
    assert.ok(note && content && note.y + note.height <= content.y, 'the note is above the page, not over it');
  });

  it('adds a UK and a US phone, formatted as typed, and a UK address chosen by country name', async () => {
    const { page } = phone;
    await go(phone, 'Fields', 'fields');
    await page.getByText('Nothing here yet.').waitFor();
    await phone.screens('03-fields-empty');

    // A UK mobile: the country starts at My country; the box brings the phone keyboard.
    await page.getByRole('button', { name: 'Add a detail' }).click();
    await page.getByRole('button', { name: 'Phone', exact: true }).click();
    const editor = page.locator('#field-editor');
    assert.equal(await editor.getByLabel('Country').inputValue(), 'GB');
    const number = editor.getByLabel('Phone', { exact: true });
    assert.deepEqual(await number.evaluate((el) => [el.getAttribute('type'), el.getAttribute('inputmode'), el.getAttribute('autocomplete'), el.getAttribute('maxlength')]), ['tel', 'tel', 'tel', '64']);
    await number.pressSequentially('07400123456');
    // Formatted as typed: waited for, as the formatter loads with the box and may come after the
    // keys under load (it then formats what is there).
    await page.waitForFunction((box) => (box as HTMLInputElement).value === '07400 123456', await number.elementHandle(), { timeout: 10_000 }).catch(() => undefined);
    assert.equal(await number.inputValue(), '07400 123456', 'formatted as typed');
    await editor.getByLabel(/^Label/).fill('mobile');
    await phone.screens('04-fields-phone-form');
    await editor.getByRole('button', { name: 'Add phone number' }).click();
    await page.locator('#fields li[data-type="phone"]', { hasText: '+44 7400 123456' }).waitFor();
    await page.locator('#status', { hasText: 'Phone added.' }).waitFor();

    // A US number: the country picked by its name. The next action takes the last note away.
    await page.getByRole('button', { name: 'Add a detail' }).click();
    assert.equal(await page.locator('#status').textContent(), '');
    await page.getByRole('button', { name: 'Phone', exact: true }).click();
    await editor.getByLabel('Country').selectOption({ label: 'United States' });
    await editor.getByLabel('Phone', { exact: true }).pressSequentially('2015550123');
    assert.equal(await editor.getByLabel('Phone', { exact: true }).inputValue(), '(201) 555-0123');
    await editor.getByRole('button', { name: 'Add phone number' }).click();
    await page.locator('#fields li[data-type="phone"]', { hasText: '+1 201 555 0123' }).waitFor();

    // A UK address: the boxes and what is required follow the country's post.
    await page.getByRole('button', { name: 'Add a detail' }).click();
    await page.getByRole('button', { name: 'Postal address' }).click();
    await editor.getByLabel('Country').selectOption({ label: 'United Kingdom' });
    const labels = await editor.locator('.form-grid label').allTextContents();
    assert.deepEqual(labels, ['Street and number', 'Post town', 'Postcode'], 'all three required: none says optional');
    await editor.getByLabel('Street and number').fill('10 Downing Street');
    await editor.getByLabel('Post town').fill('London');
    await editor.getByLabel('Postcode').fill('nope');
    await editor.getByRole('button', { name: 'Add address' }).click();
    const postcodeError = editor.locator('.field.invalid', { has: page.getByLabel('Postcode') }).locator('.box-error');
    await postcodeError.waitFor();
    assert.match((await postcodeError.textContent()) ?? '', /^Check the postcode: in United Kingdom it looks like /);
    assert.equal(await editor.locator('.box-error').count(), 1, 'one sentence, under the box it concerns');
    await phone.screens('05-fields-address-error');
    // Another country: what was said of the UK postcode goes with the UK's boxes.
    await editor.getByLabel('Country').selectOption({ label: 'United States' });
    await editor.getByLabel(/^ZIP code/).waitFor();
    assert.equal(await editor.locator('.box-error').count(), 0, 'no UK sentence under the US box');
    await editor.getByLabel('Country').selectOption({ label: 'United Kingdom' });
    await editor.getByLabel('Postcode').fill('sw1a 2aa');
    await editor.getByRole('button', { name: 'Add address' }).click();
    const address = page.locator('#fields li[data-type="postal_address"]');
    await address.filter({ hasText: 'SW1A 2AA' }).waitFor();
    assert.match((await address.textContent()) ?? '', /United Kingdom/i);
    const listed = (await page.locator('#fields').textContent()) ?? '';
    assert.doesNotMatch(listed, /\b(GB|GG|US)\b/, 'countries by name, never by code');
    await phone.screens('06-fields');
  });

  it('edits in place, and keeps what is typed while another device changes the list', async () => {
    const { page } = phone;
    // A second window on a wide screen, signed in as the same person: its changes reach this one as signals.
    const wide = await phone.context.newPage();
    await wide.setViewportSize({ width: 1280, height: 900 });
    await wide.goto(`${e2e.origin}/fields`);
    await wide.locator('main[data-view="fields"]').waitFor();
    await wide.locator('main .skeleton').first().waitFor({ state: 'detached' });

    const id = await page.locator('#fields li[data-type="phone"]', { hasText: '+44' }).getAttribute('data-field');
    const mobile = page.locator(`#fields li[data-field="${id}"]`);
    await mobile.getByRole('button', { name: /^Edit/ }).click();
    const form = mobile.locator('form');
    await form.getByLabel(/^Label/).fill('personal mob');
    await page.locator('body[data-stream="streaming"]').waitFor({ state: 'attached' });
    // Meanwhile the other window adds a nickname: the phone's list grows under the open form.
    await wide.getByRole('button', { name: 'Add a detail' }).click();
    await wide.getByRole('button', { name: 'Nickname' }).click();
    await wide.locator('#field-editor').getByLabel('Nickname', { exact: true }).fill('Countess');
    await wide.locator('#field-editor').getByRole('button', { name: 'Add nickname' }).click();
    await page.locator('#fields li[data-type="nickname"]', { hasText: 'Countess' }).waitFor();
    assert.equal(await form.getByLabel(/^Label/).inputValue(), 'personal mob', 'what is typed stays');
    await form.getByRole('button', { name: 'Save' }).click();
    await mobile.filter({ hasText: 'Personal mob' }).waitFor();
    await wide.locator('#fields li[data-type="phone"]', { hasText: 'Personal mob' }).waitFor();
    await wide.close();
  });

  it('names passkeys, marks this device and renames one', async () => {
    const { page } = phone;
    await go(phone, 'Security', 'security');
    const mine = page.locator('#passkeys li').first();
    await mine.getByText('This device').waitFor();
    assert.equal(await page.locator('#passkeys .tag').count(), 1);
    await mine.getByRole('button', { name: /^Rename/ }).click();
    const box = mine.getByLabel('Passkey name');
    assert.equal(await box.getAttribute('maxlength'), '64');
    await box.fill('Ada’s phone');
    await mine.getByRole('button', { name: 'Save name' }).click();
    await page.locator('#passkeys li strong', { hasText: 'Ada’s phone' }).waitFor();
    await page.locator('#activity li[data-kind="passkey_renamed"]').waitFor();
  });

  it('sets up an authenticator app from a secret in groups of four, with a copy button and an app link', async () => {
    const { page } = phone;
    await page.getByRole('button', { name: 'Add an authenticator app' }).click();
    const secretBox = page.locator('#totp-secret');
    await secretBox.waitFor();
    const shown = (await secretBox.textContent())!.trim();
    assert.match(shown, /^[A-Z2-7]{4}( [A-Z2-7]{1,4})+$/, 'in groups of four');
    const secret = shown.replaceAll(' ', '');
    assert.match((await page.getByRole('link', { name: 'Open in an app on this phone' }).getAttribute('href')) ?? '', /^otpauth:\/\/totp\//);
    await page.getByRole('button', { name: 'Copy the secret' }).waitFor();
    await page.locator('.qr svg').waitFor();
    await phone.screens('07-security-totp');
    const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
    await page.getByLabel('First code the app shows').fill(code);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.locator('#totps li', { hasText: 'Active since' }).waitFor();
  });

  it('downloads the recovery key and says when it was downloaded', async () => {
    const { page } = phone;
    await page.getByText('Not downloaded yet').waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download recovery key' }).click()]);
    assert.equal(download.suggestedFilename(), 'vid-recovery-key.txt');
    assert.match(readFileSync((await download.path())!, 'utf8'), /[0-9A-Z]{4}(?:-[0-9A-Z]{4}){7}/);
    await page.locator('#recovery-state', { hasText: 'Last downloaded' }).waitFor();
    await page.getByText('Downloading again gives you the same key').waitFor();
    await page.locator('#activity li[data-kind="recovery_key_downloaded"]').waitFor();
    await phone.screens('08-security');
  });

  it('shows the other screens: sessions, add a device, your data', async () => {
    await go(phone, 'Sessions', 'sessions');
    const { page } = phone;
    const here = page.locator('#sessions li', { hasText: 'This device' });
    await here.waitFor();
    assert.doesNotMatch((await page.locator('#sessions').textContent()) ?? '', /Mozilla|AppleWebKit/);
    await phone.screens('09-sessions');
    await go(phone, 'Add a device', 'add-device');
    await phone.screens('10-add-device');
    await go(phone, 'Your data', 'data');
    await phone.screens('11-data');
  });

  it('says it is offline when the server stops, keeps everything on screen, and carries on when it is back', async () => {
    const { page } = phone;
    await go(phone, 'Fields', 'fields');
    await page.locator('body[data-stream="streaming"]').waitFor({ state: 'attached' });
    const before = await page.locator('#fields li').count();

    await e2e.stop();
    await page.getByText(OFFLINE).first().waitFor();
    assert.equal(await page.locator('#fields li').count(), before, 'the list stays');
    // Other screens show what they hold, never an empty page.
    await go(phone, 'Account', 'account');
    await page.getByRole('heading', { name: 'Ada Lovelace' }).waitFor();
    await go(phone, 'Fields', 'fields');
    assert.equal(await page.locator('#fields li').count(), before);
    assert.equal(await page.getByText('Nothing here yet.').count(), 0, 'never "empty" for "not reachable"');

    // Saving while offline says plainly that it was not sent, keeps what was typed, and sends
    // it by itself once the server answers again (it once said "trying again" and never did).
    await page.getByRole('button', { name: 'Add a detail' }).click();
    await page.getByRole('button', { name: 'E-mail' }).click();
    const email = page.locator('#field-editor').getByLabel('E-mail', { exact: true });
    assert.deepEqual(await email.evaluate((el) => [el.getAttribute('type'), el.getAttribute('inputmode'), el.getAttribute('autocomplete')]), ['email', 'email', 'email']);
    await email.fill('ada@example.com');
    await page.locator('#field-editor').getByRole('button', { name: 'Add e-mail address' }).click();
    await page.locator('#field-editor .msg.error', { hasText: NOT_SENT }).waitFor();
    assert.equal(await email.inputValue(), 'ada@example.com');
    await phone.shot('12-offline-fields');

    await e2e.start();
    await page.locator('#offline').waitFor({ state: 'detached', timeout: 30_000 });
    await page.locator('#fields li[data-type="email"]', { hasText: 'ada@example.com' }).waitFor();
    assert.equal(await page.locator('#fields li').count(), before + 1, 'sent once');
    await page.locator('body[data-stream="streaming"]').waitFor({ state: 'attached', timeout: 30_000 });
  });

  it('deletes the account after saying what happens, shows the one screen it has, and restores it', async () => {
    const { page } = phone;
    await go(phone, 'Your data', 'data');
    await page.getByText('You can change your mind for 14 days').waitFor();
    await page.getByRole('button', { name: 'Delete my account…' }).click();
    const confirm = page.locator('#delete-account-confirm');
    const text = (await confirm.textContent()) ?? '';
    assert.match(text, /other devices are signed out/);
    assert.match(text, /username stays reserved for 2 years/);
    await page.waitForFunction(() => document.activeElement?.id === 'confirm-delete-account');
    await phone.screens('13-delete-confirm');
    await confirm.getByRole('button', { name: 'Delete my account', exact: true }).click();
    await phone.view('deleted');
    await page.getByRole('heading', { name: 'Your account is deleted' }).waitFor();
    assert.equal(await page.locator('#nav a').count(), 0, 'no links to screens a deleted account cannot open');
    await phone.screens('14-deleted');
    // Whatever the address, the one screen.
    await page.goto(`${e2e.origin}/fields`);
    await phone.view('deleted');

    await page.getByRole('button', { name: 'Restore my account' }).click();
    await phone.view('fields');
    await page.getByText('Welcome back: your account is restored.').waitFor();
    await page.locator('#fields li[data-type="postal_address"]', { hasText: 'SW1A 2AA' }).waitFor();
    await page.locator('body[data-stream="streaming"]').waitFor({ state: 'attached' });
  });
});
