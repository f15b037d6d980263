// Following across regions in Chromium (PRODUCT §10, decision 352): two deployments, EU and US,
// each over its own database and serving its own web app, and one browser for each. Two people
// with the same username, one per region: the US one follows the EU one as `name@eu`, who
// approves in her browser; the US browser shows her card with her region, then her edit without
// a reload, then that she stopped sharing; asked again, she blocks and unblocks him. Everywhere
// the other region's person is named, the region is said, so the two are never taken for each other.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { openBrowser } from '../helpers/browser.js';
import type { Browsing, Device } from '../helpers/browser.js';
import { browserOrigin, startRegions } from '../helpers/regions.js';
import type { RegionPair } from '../helpers/regions.js';
import { addField, editField, goTo, setDisplayName } from '../helpers/web-ui.js';

const sqlite = backends.find((b) => b.name === 'sqlite')!;
const MARKER = () => (window as unknown as { marker?: number }).marker;

describe('web app: following someone in the other region (two deployments, Chromium)', { timeout: 240_000 }, () => {
  let r: RegionPair;
  let browsers: Browsing[] = [];
  /** Her in the EU, him in the US: the same username in both regions. */
  let eu: Device;
  let us: Device;
  const name = `alex${Date.now().toString(36)}`;

  before(async () => {
    r = await startRegions(sqlite, {}, {}, { forBrowsers: true });
    browsers = [await openBrowser(browserOrigin(r.eu)), await openBrowser(browserOrigin(r.us))];
    eu = await browsers[0]!.device('eu', { width: 390, height: 844 });
    us = await browsers[1]!.device('us', { width: 390, height: 844 });
  });
  after(async () => {
    for (const browsing of browsers) await browsing.close();
    await r?.close();
  });

  /**
   * The screens at both widths and schemes, without the passing note of the last action in them
   * (hidden, not emptied: the app writes the next note into the same element).
   */
  async function screens(device: Device, shot: string): Promise<void> {
    const note = (display: string) => device.page.evaluate((v) => document.getElementById('status')?.style.setProperty('display', v), display);
    await note('none');
    try {
      await device.screens(shot);
    } finally {
      await note('');
    }
  }

  it('one person signs up in each region, with the same username; the EU one shares her phone on a Work profile', async () => {
    await Promise.all([eu.signUp(name), us.signUp(name)]);
    const { page } = eu;
    await setDisplayName(page, 'Alex Lindqvist');
    await goTo(page, 'Fields', 'fields');
    await addField(page, 'Phone', async (editor) => {
      await editor.getByLabel('Phone', { exact: true }).fill('+49 30 22732152');
      await editor.getByLabel(/^Label/).fill('mobile');
    }, '30 22732152');
    await goTo(page, 'Profiles', 'profiles');
    await page.getByLabel('New profile').fill('Work');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#profiles [data-profile][aria-pressed="true"]', { hasText: 'Work' }).waitFor();
    await page.getByRole('button', { name: /^Show Phone mobile in Work/ }).click();
    await page.locator('.profile-preview .vcard li[data-type="phone"]').waitFor();
    // Her own card names her as at home: no region on it.
    assert.equal(await page.locator('.profile-preview .vcard-username').textContent(), `@${name}`);
    assert.equal(await page.locator('.profile-preview .vcard-region').count(), 0);
  });

  it('the US one is told how to follow someone elsewhere, an unknown region in words, and asks name@eu', async () => {
    const { page } = us;
    await goTo(page, 'Contacts', 'contacts');
    const box = page.getByLabel('Their username');
    await page.getByText('To follow someone in another region, add @eu or @us.').waitFor();
    await box.fill(`${name}@mars`);
    await page.getByRole('button', { name: 'Ask to follow' }).click();
    await page.getByText('There is no region called “mars”. Use @eu or @us.').waitFor();
    assert.equal(await box.getAttribute('aria-invalid'), 'true');
    await screens(us, 'regions-01-follow-unknown-region');

    await box.fill(`${name}@eu`);
    await page.getByLabel('Message (optional)').fill('Hi Alex, Alex from Boston here.');
    await page.getByRole('button', { name: 'Ask to follow' }).click();
    const waiting = page.locator('#pending li[data-status="pending"]');
    await waiting.waitFor();
    // Named with her region: the row is not his own name, though the username is the same.
    assert.equal(await waiting.locator('.region-tag').textContent(), '@eu');
    assert.match(await waiting.locator('.person-text .item-meta').textContent() ?? '', new RegExp(`^@${name}@eu · asked`));
    await screens(us, 'regions-02-contacts-waiting');
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
  });

  it('the EU one sees the request named name@us on People and approves it onto Work', async () => {
    const { page } = eu;
    await goTo(page, 'People', 'people');
    const request = page.locator('#requests li[data-request]');
    await request.waitFor();
    // He has no display name: his name itself says his region, so he is not read as her.
    assert.equal(await request.locator('.person-text strong').textContent(), `${name}@us`);
    assert.equal(await request.locator('.region-tag').textContent(), '@us');
    await request.locator('.request-message', { hasText: 'Alex from Boston' }).waitFor();
    await screens(eu, 'regions-03-people-request');

    await request.getByLabel('Approve onto').selectOption({ label: 'Work' });
    await page.getByRole('button', { name: `Approve ${name}@us` }).click();
    await page.locator('#subscribers li[data-subscriber] .region-tag', { hasText: '@us' }).waitFor();
    await page.getByText('No requests waiting.').waitFor();
  });

  it('the US browser shows her card, with her region, without a reload', async () => {
    await r.settle();
    const { page } = us;
    const contact = page.locator('li.contact');
    await contact.locator('.vcard li[data-type="phone"]', { hasText: '30 22732152' }).waitFor();
    assert.equal(await contact.locator('.vcard-name').textContent(), 'Alex Lindqvist');
    assert.equal(await contact.locator('.vcard-username').textContent(), `@${name}@eu`);
    assert.equal(await contact.locator('.vcard-region').textContent(), 'Lives in the EU region');
    assert.equal(await page.locator('#pending').count(), 0, 'no longer waiting');
    assert.equal(await page.evaluate(MARKER), 42, 'the same page, not a reload');
    await screens(us, 'regions-04-contact-card');
  });

  it('her edit in the EU reaches the open US screen live', async () => {
    await goTo(eu.page, 'Fields', 'fields');
    await editField(eu.page, 'Mobile', (form) => form.getByLabel('Phone', { exact: true }).fill('+49 30 22732153'), '30 22732153');
    await r.settle();
    const phone = us.page.locator('li.contact .vcard li[data-type="phone"]');
    await phone.filter({ hasText: '30 22732153' }).waitFor();
    assert.equal(await phone.filter({ hasText: '30 22732152' }).count(), 0);
    assert.equal(await us.page.evaluate(MARKER), 42, 'still the same page, not a reload');
  });

  it('she sees him among those who see her card, named name@us, and revokes; the US screen says she stopped sharing', async () => {
    const { page } = eu;
    await goTo(page, 'People', 'people');
    const subscriber = page.locator('#subscribers li[data-subscriber]');
    assert.match(await subscriber.locator('.item-meta').textContent() ?? '', new RegExp(`^@${name}@us · since`));
    await screens(eu, 'regions-05-people-subscriber');
    await subscriber.getByRole('button', { name: `Revoke ${name}@us…` }).click();
    await page.getByRole('group', { name: `Stop sharing with ${name}@us?` }).getByRole('button', { name: `Revoke ${name}@us`, exact: true }).click();
    await page.getByText(`${name}@us no longer sees your card.`).waitFor();
    await r.settle();

    const ended = us.page.locator('#ended li[data-status="revoked"]');
    await ended.getByText('Alex Lindqvist stopped sharing their card with you.').waitFor();
    assert.equal(await ended.locator('.region-tag').textContent(), '@eu');
    assert.equal(await us.page.locator('li.contact').count(), 0, 'her card is gone');
    assert.equal(await us.page.evaluate(MARKER), 42, 'still the same page, not a reload');
    await screens(us, 'regions-06-contacts-revoked');
  });

  it('asked again, she denies and blocks him: her blocked list names him name@us, and she unblocks him', async () => {
    const { page } = us;
    await page.getByLabel('Their username').fill(`${name}@eu`);
    await page.getByRole('button', { name: 'Ask to follow' }).click();
    await page.locator('#pending li[data-status="pending"]').waitFor();

    await eu.page.locator('#requests li[data-request]').waitFor();
    await eu.page.getByRole('button', { name: `Deny and block ${name}@us` }).click();
    const blocked = eu.page.locator('#blocked li[data-blocked]');
    await blocked.waitFor();
    assert.equal(await blocked.getAttribute('data-blocked'), `${name}@us`);
    assert.equal(await blocked.locator('.region-tag').textContent(), '@us');
    await screens(eu, 'regions-07-people-blocked');
    await eu.page.getByRole('button', { name: `Unblock ${name}@us` }).click();
    await eu.page.getByText('Nobody. When you deny or revoke someone').waitFor();
  });
});
