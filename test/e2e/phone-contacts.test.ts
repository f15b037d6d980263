// Phone contacts in Chromium (web/src/views/phone-contacts.tsx, views/phone-setup.tsx): a person
// adds a phone (a passkey check) and sees a QR code, a short address and a code. A second browser
// sized as a phone opens the link: as an iPhone it receives the configuration profile (a plist
// whose account the address book accepts), as an Android phone DAVx5's filled-in login; a phone
// typing the code gets the plain values. Opening the page uses nothing; a used link says so in
// words. The computer's page follows each phone live: it has its password, then its first sync.
// Typing a password by hand stays for other apps; revoking follows in another tab without a
// reload; the limit of 10 is said in words. Screens at 390 px and 1280 px, light and dark, axe.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { startE2e } from '../helpers/browser.js';
import type { Device, E2e } from '../helpers/browser.js';
import { parsePlist } from '../helpers/plist.js';
import type { Plist } from '../helpers/plist.js';

type Dict = Record<string, Plist>;
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
const ANDROID = 'Mozilla/5.0 (Linux; Android 15; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

describe('web app: phone contacts (Chromium)', { timeout: 300_000 }, () => {
  let e2e: E2e;
  let computer: Device;
  const username = `pia${Date.now().toString(36)}`;
  let profile: Dict;
  const phones: BrowserContext[] = [];

  before(async () => {
    e2e = await startE2e();
    computer = await e2e.device('computer', { width: 390, height: 844 });
  });
  after(async () => {
    for (const context of phones) await context.close().catch(() => undefined);
    await e2e?.close();
  });

  /** A second browser, sized and described as a phone: it holds no session. */
  async function phone(userAgent: string): Promise<Page> {
    const context = await e2e.browser.newContext({ viewport: { width: 390, height: 844 }, userAgent, acceptDownloads: true, isMobile: true, hasTouch: true });
    phones.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    return page;
  }

  /** PROPFIND on a DAV path with Basic credentials, as an address book asks. */
  async function propfind(url: string, user: string, password: string): Promise<number> {
    const answer = await fetch(url, {
      method: 'PROPFIND',
      headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`, depth: '0', 'content-type': 'application/xml; charset=utf-8' },
      body: '<?xml version="1.0" encoding="utf-8"?><d:propfind xmlns:d="DAV:"><d:prop><d:current-user-principal/><d:displayname/></d:prop></d:propfind>',
    });
    await answer.arrayBuffer();
    return answer.status;
  }

  /** Adds a phone on the computer: the QR panel's link and code. */
  async function addPhone(name: string): Promise<{ url: string; code: string }> {
    const { page } = computer;
    await page.getByLabel('Name this phone').fill(name);
    await page.getByRole('button', { name: 'Add a phone' }).click();
    const panel = page.locator('#phone-setup');
    await panel.getByRole('img', { name: /QR code/ }).locator('svg').waitFor();
    return { url: (await page.locator('#setup-here').getAttribute('href'))!, code: (await page.locator('#phone-code').textContent())! };
  }

  async function closePanel(): Promise<void> {
    await computer.page.locator('#phone-setup-close').click();
    await computer.page.locator('#phone-setup').waitFor({ state: 'detached' });
  }

  it('explains the address book and offers to add the first phone', async () => {
    const { page } = computer;
    await computer.signUp(username);
    const nav = page.locator('#nav');
    const link = nav.getByRole('link', { name: 'Phone contacts', exact: true });
    if (!(await link.isVisible())) await nav.getByRole('button', { name: 'More' }).click();
    await link.click();
    await computer.view('phone-contacts');
    await page.getByRole('heading', { name: 'Phone contacts', level: 1 }).waitFor();
    await page.getByText('It is read-only.').waitFor();
    await page.getByText('No phone yet. Add one above.').waitFor();
    assert.equal(await page.getByLabel('Name this phone').getAttribute('maxlength'), '64');
    await computer.screens('phone-contacts-01-empty');
  });

  it('says why a name is refused, next to the box', async () => {
    const { page } = computer;
    await page.getByLabel('Name this phone').fill('Evil\u202Ephone');
    await page.getByRole('button', { name: 'Add a phone' }).click();
    await page.getByText('Leave out invisible characters such as control or direction marks.').waitFor();
    assert.equal(await page.locator('#phones').count(), 0, 'nothing was made');
  });

  it('an iPhone scans the code, installs the profile, and the computer sees it connect', async () => {
    const { page } = computer;
    const { url, code } = await addPhone('Alice’s iPhone');
    assert.match(url, /\/p\/#[A-Za-z0-9_-]{32}$/);
    assert.match(code, /^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    assert.equal(await page.locator('#phone-short-url').textContent(), `${new URL(e2e.origin).host}/p`);
    // The server's address here is localhost: the page says a phone cannot reach it.
    await page.locator('#phone-unreachable').waitFor();
    await page.locator('#phone-waiting').waitFor();
    await computer.screens('phone-contacts-02-scan');

    const iphone = await phone(IPHONE);
    await iphone.goto(url);
    await iphone.getByRole('heading', { name: 'Add your contacts to this phone' }).waitFor();
    // Opening the page (as a link preview would) used nothing.
    await iphone.reload();
    const install = iphone.getByRole('button', { name: 'Install on this iPhone' });
    await install.waitFor();
    await iphone.screenshot({ path: 'test-artifacts/e2e/screens/phone-setup-iphone.png', fullPage: true });
    const [download] = await Promise.all([iphone.waitForEvent('download'), install.click()]);
    assert.match(download.suggestedFilename(), /\.mobileconfig$/);
    const top = parsePlist(readFileSync((await download.path())!, 'utf8')) as Dict;
    assert.equal(top.PayloadType, 'Configuration');
    const [carddav] = top.PayloadContent as Dict[];
    assert.equal(carddav!.PayloadType, 'com.apple.carddav.account');
    assert.equal(carddav!.CardDAVHostName, 'localhost');
    assert.equal(carddav!.CardDAVPort, Number(new URL(e2e.origin).port));
    assert.equal(carddav!.CardDAVUseSSL, false);
    assert.match(String(carddav!.CardDAVUsername), /^acc_/);
    profile = carddav!;
    await iphone.getByText('Tap “Profile Downloaded” near the top.').waitFor();

    // The computer learns it live: the phone has its password, then its first sync.
    await page.locator('#phone-opened').waitFor();
    assert.equal(await propfind(String(carddav!.CardDAVPrincipalURL), String(carddav!.CardDAVUsername), String(carddav!.CardDAVPassword)), 207);
    await page.locator('#phone-connected').getByText('Alice’s iPhone is connected.').waitFor();
    await computer.screens('phone-contacts-03-connected');
    await closePanel();
    await page.locator('#phones li', { hasText: 'Alice’s iPhone' }).getByText(/Last synced/).waitFor();

    // The same link again: used, said in words on the phone.
    const again = await phone(IPHONE);
    await again.goto(url);
    await again.getByRole('button', { name: 'Install on this iPhone' }).click();
    await again.locator('#setup-problem').getByText('This setup link was used already or has expired.').waitFor();
  });

  it('an Android phone gets DAVx5’s login filled in; another device types the code and sees the values', async () => {
    const { page } = computer;
    const { url } = await addPhone('Pixel');
    const android = await phone(ANDROID);
    await android.goto(url);
    await android.getByRole('button', { name: 'Set up with DAVx5' }).click();
    const open = android.getByRole('link', { name: 'Open DAVx5' });
    await open.waitFor();
    const intent = (await open.getAttribute('href'))!;
    assert.match(intent, /^intent:\/\/acc_[^:]+:vidcd_[^@]+@localhost:\d+\/dav\/#Intent;scheme=carddav;package=at\.bitfire\.davdroid;end$/);
    const [, user, password] = /^intent:\/\/([^:]+):([^@]+)@/.exec(intent)!;
    await android.screenshot({ path: 'test-artifacts/e2e/screens/phone-setup-android.png', fullPage: true });
    // A sync with the password it carries sees the book.
    assert.equal(await propfind(`${e2e.origin}/dav/principals/${decodeURIComponent(user!)}/`, decodeURIComponent(user!), decodeURIComponent(password!)), 207);
    await page.locator('#phone-connected').waitFor();
    await closePanel();

    // By code, from a browser that is neither: /p, the code as typed, the values to enter.
    const { code } = await addPhone('Laptop');
    const other = await phone(FIREFOX_LINUX);
    await other.goto(`${e2e.origin}/p`);
    await other.getByLabel('Code').fill(code.toLowerCase().replace('-', ' '));
    await other.getByRole('button', { name: 'Continue' }).click();
    await other.getByRole('button', { name: 'Show the settings' }).click();
    const secret = (await other.locator('#phone-password .password').getAttribute('data-secret'))!;
    assert.match(secret, /^vidcd_dav_/);
    assert.equal(await other.locator('#phone-username').textContent(), username);
    assert.equal(await propfind(`${e2e.origin}/dav/`, username, secret), 207);
    await page.locator('#phone-connected').waitFor();
    await closePanel();
  });

  it('makes a password to type for other apps, and revokes; another tab follows without a reload', async () => {
    const { page } = computer;
    const tab = await computer.context.newPage();
    await tab.goto(`${e2e.origin}/phone-contacts`);
    await tab.locator('main[data-view="phone-contacts"] #phones li', { hasText: 'Alice’s iPhone' }).waitFor();

    await page.getByLabel('Name this phone').fill('Thunderbird');
    await page.getByRole('button', { name: 'Make a password to type instead' }).click();
    await page.locator('#phone-typed').getByText('This password is shown only now.').waitFor();
    const password = (await page.locator('#phone-password .password').getAttribute('data-secret'))!;
    const groups = await page.locator('#phone-password .group').allTextContents();
    assert.ok(groups.every((g) => g.length <= 4) && groups.join('') === password, 'the password in groups of four');
    assert.equal(await propfind(`${e2e.origin}/dav/`, username, password), 207);
    await computer.screens('phone-contacts-04-typed');
    await page.getByRole('button', { name: 'Done, it is set up' }).click();
    await tab.locator('#phones li', { hasText: 'Thunderbird' }).waitFor();

    const item = page.locator('#phones li', { hasText: 'Alice’s iPhone' });
    await item.getByRole('button', { name: 'Revoke Alice’s iPhone' }).click();
    await item.getByText('It stops syncing at once.').waitFor();
    await computer.screens('phone-contacts-05-revoke');
    await item.getByRole('button', { name: 'Revoke', exact: true }).click();
    await page.getByText('Alice’s iPhone no longer syncs.').waitFor();
    await item.waitFor({ state: 'detached' });
    await tab.locator('#phones li', { hasText: 'Alice’s iPhone' }).waitFor({ state: 'detached' });
    assert.equal(await propfind(String(profile.CardDAVPrincipalURL), String(profile.CardDAVUsername), String(profile.CardDAVPassword)), 401);
    await tab.close();
  });

  it('holds at most 10, says so, and revokes all at once', async () => {
    const { page } = computer;
    for (let n = (await page.locator('#phones li').count()) + 1; n <= 10; n++) {
      await page.getByLabel('Name this phone').fill(`Phone ${n}`);
      await page.getByRole('button', { name: 'Make a password to type instead' }).click();
      await page.getByRole('button', { name: 'Done, it is set up' }).click();
      await page.locator('#phone-typed').waitFor({ state: 'detached' });
    }
    await page.locator('#phones li').nth(9).waitFor();
    await page.getByText('You have 10 phones set up, the most there can be. Revoke one you no longer use to add another.').waitFor();
    assert.equal(await page.getByLabel('Name this phone').count(), 0);
    await computer.screens('phone-contacts-06-full');

    await page.getByRole('button', { name: 'Revoke all' }).click();
    await page.getByText('Revoke all 10 phones?').waitFor();
    await computer.screens('phone-contacts-07-revoke-all');
    await page.getByRole('group', { name: 'Revoke every phone?' }).getByRole('button', { name: 'Revoke all' }).click();
    await page.getByText('No phone yet. Add one above.').waitFor();
    await page.getByLabel('Name this phone').waitFor();
  });
});
