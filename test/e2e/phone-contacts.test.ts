// Phone contacts in Chromium (web/src/views/phone-contacts.tsx): a person names a phone and adds
// it (a passkey check), sees the server, username and password once, downloads the configuration
// profile (a plist with the com.apple.carddav.account payload, whose credentials the address book
// itself accepts), and revokes it; a second tab's list follows every change without a reload
// (dav-tokens.changed). The limit of 10 and a refused name are said in words. Every state is
// saved at 390 px and 1280 px, light and dark, and checked by axe-core (device.screens).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startE2e } from '../helpers/browser.js';
import type { Device, E2e } from '../helpers/browser.js';
import { parsePlist } from '../helpers/plist.js';
import type { Plist } from '../helpers/plist.js';

type Dict = Record<string, Plist>;

describe('web app: phone contacts (Chromium)', { timeout: 300_000 }, () => {
  let e2e: E2e;
  let phone: Device;
  const username = `pia${Date.now().toString(36)}`;
  let profile: Dict;

  before(async () => {
    e2e = await startE2e();
    phone = await e2e.device('phone', { width: 390, height: 844 });
  });
  after(async () => {
    await e2e?.close();
  });

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

  it('explains the address book and offers to add the first phone', async () => {
    const { page } = phone;
    await phone.signUp(username);
    const nav = page.locator('#nav');
    const link = nav.getByRole('link', { name: 'Phone contacts', exact: true });
    if (!(await link.isVisible())) await nav.getByRole('button', { name: 'More' }).click();
    await link.click();
    await phone.view('phone-contacts');
    await page.getByRole('heading', { name: 'Phone contacts', level: 1 }).waitFor();
    await page.getByText('It is read-only.').waitFor();
    await page.getByText('No phone yet. Name one above and add it.').waitFor();
    assert.equal(await page.getByLabel('Name this phone').getAttribute('maxlength'), '64');
    await phone.screens('phone-contacts-01-empty');
  });

  it('says why a name is refused, next to the box', async () => {
    const { page } = phone;
    await page.getByLabel('Name this phone').fill('Evil\u202Ephone');
    await page.getByRole('button', { name: 'Add a phone' }).click();
    await page.getByText('Leave out invisible characters such as control or direction marks.').waitFor();
    assert.equal(await page.locator('#phones').count(), 0, 'nothing was made');
  });

  it('adds a phone after a passkey check and shows server, username and password once', async () => {
    const { page } = phone;
    await page.getByLabel('Name this phone').fill('Alice’s iPhone');
    await page.getByRole('button', { name: 'Add a phone' }).click();
    const setup = page.locator('#phone-setup');
    await setup.getByRole('heading', { name: 'Set up Alice’s iPhone' }).waitFor();
    await setup.getByText('This password is shown only now.').waitFor();
    const host = new URL(e2e.origin).host;
    assert.equal(await page.locator('#phone-server').textContent(), host);
    assert.equal(await page.locator('#phone-server-url').textContent(), `${e2e.origin}/dav/`);
    assert.equal(await page.locator('#phone-username').textContent(), username);
    const password = (await page.locator('#phone-password .password').getAttribute('data-secret'))!;
    assert.match(password, /^vidcd_dav_[A-Za-z0-9_-]{22}_[A-Za-z0-9_-]{43}$/);
    const groups = await page.locator('#phone-password .group').allTextContents();
    assert.ok(groups.every((g) => g.length <= 4) && groups.join('') === password, 'the password in groups of four');
    // The list below shows the new phone, never synced yet.
    await page.locator('#phones li', { hasText: 'Alice’s iPhone' }).getByText('Never synced yet').waitFor();
    // The typed credentials open the address book.
    assert.equal(await propfind(`${e2e.origin}/dav/`, username, password), 207);
    await phone.screens('phone-contacts-02-set-up');

    // The profile: a plist the device installs, carrying the same account.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Install on iPhone or Mac' }).click()]);
    assert.match(download.suggestedFilename(), /\.mobileconfig$/);
    const xml = readFileSync((await download.path())!, 'utf8');
    const top = parsePlist(xml) as Dict;
    assert.equal(top.PayloadType, 'Configuration');
    const [carddav] = top.PayloadContent as Dict[];
    assert.equal(carddav!.PayloadType, 'com.apple.carddav.account');
    assert.equal(carddav!.CardDAVHostName, 'localhost');
    assert.equal(carddav!.CardDAVPort, Number(new URL(e2e.origin).port));
    assert.equal(carddav!.CardDAVUseSSL, false);
    assert.equal(carddav!.CardDAVPassword, password);
    assert.equal(carddav!.CardDAVAccountDescription, 'People I follow (VID)');
    profile = carddav!;
    // Its user name (the account id, which survives a rename) and principal are the address book's own.
    assert.match(String(carddav!.CardDAVUsername), /^acc_/);
    assert.equal(carddav!.CardDAVPrincipalURL, `${e2e.origin}/dav/principals/${String(carddav!.CardDAVUsername)}/`);
    assert.equal(await propfind(String(carddav!.CardDAVPrincipalURL), String(carddav!.CardDAVUsername), password), 207);

    // Shown once: done, the password is gone from the page and no route serves it.
    await page.getByRole('button', { name: 'Done, it is set up' }).click();
    await page.locator('#phone-setup').waitFor({ state: 'detached' });
    assert.equal(await page.getByText(password.slice(-8)).count(), 0);
    await page.reload();
    await phone.view('phone-contacts');
    await page.locator('#phones li', { hasText: 'Alice’s iPhone' }).getByText(/Last synced (just now|1 minute ago)/).waitFor();
    assert.ok(!(await page.content()).includes(password.slice(10)), 'the password never comes back');
    await phone.screens('phone-contacts-03-list');
  });

  it('revokes a phone, and another tab’s list follows without a reload', async () => {
    const { page } = phone;
    const tab = await phone.context.newPage();
    await tab.goto(`${e2e.origin}/phone-contacts`);
    await tab.locator('main[data-view="phone-contacts"] #phones li', { hasText: 'Alice’s iPhone' }).waitFor();

    // A second phone appears in the other tab by itself.
    await page.getByLabel('Name this phone').fill('Work laptop');
    await page.getByRole('button', { name: 'Add a phone' }).click();
    await page.locator('#phone-setup').waitFor();
    await page.getByRole('button', { name: 'Done, it is set up' }).click();
    await tab.locator('#phones li', { hasText: 'Work laptop' }).getByText('Never synced yet').waitFor();

    const item = page.locator('#phones li', { hasText: 'Alice’s iPhone' });
    await item.getByRole('button', { name: 'Revoke Alice’s iPhone' }).click();
    await item.getByText('It stops syncing at once.').waitFor();
    await phone.screens('phone-contacts-04-revoke');
    await item.getByRole('button', { name: 'Revoke', exact: true }).click();
    await page.getByText('Alice’s iPhone no longer syncs.').waitFor();
    await item.waitFor({ state: 'detached' });
    await tab.locator('#phones li', { hasText: 'Alice’s iPhone' }).waitFor({ state: 'detached' });
    // Refused at once.
    assert.equal(await propfind(String(profile.CardDAVPrincipalURL), String(profile.CardDAVUsername), String(profile.CardDAVPassword)), 401);
    await tab.close();
  });

  it('holds at most 10, says so, and revokes all at once', async () => {
    const { page } = phone;
    for (let n = 2; n <= 10; n++) {
      await page.getByLabel('Name this phone').fill(`Phone ${n}`);
      await page.getByRole('button', { name: 'Add a phone' }).click();
      await page.locator('#phone-setup').waitFor();
      await page.getByRole('button', { name: 'Done, it is set up' }).click();
      await page.locator('#phone-setup').waitFor({ state: 'detached' });
    }
    await page.locator('#phones li').nth(9).waitFor();
    await page.getByText('You have 10 phones set up, the most there can be. Revoke one you no longer use to add another.').waitFor();
    assert.equal(await page.getByLabel('Name this phone').count(), 0);
    await phone.screens('phone-contacts-05-full');

    await page.getByRole('button', { name: 'Revoke all' }).click();
    await page.getByText('Revoke all 10 phones?').waitFor();
    await page.getByRole('group', { name: 'Revoke every phone?' }).getByRole('button', { name: 'Revoke all' }).click();
    await page.getByText('No phone yet. Name one above and add it.').waitFor();
    await page.getByLabel('Name this phone').waitFor();
  });
});
