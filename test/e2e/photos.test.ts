// Photos in Chromium at phone size: a person picks a picture, zooms into the square their card
// shows, keeps it, shows it on a Work profile, and a follower approved onto Work sees the face on
// her card, while the card's photo is nowhere in the page of someone it was not shown to.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { startE2e } from '../helpers/browser.js';
import type { Device, E2e } from '../helpers/browser.js';
import { goTo, setDisplayName } from '../helpers/web-ui.js';

describe('web app: a photo on the card (Chromium)', { timeout: 180_000 }, () => {
  let e2e: E2e;
  let ada: Device;
  let ben: Device;
  const stamp = Date.now().toString(36);
  const adaName = `ada${stamp}`;

  before(async () => {
    e2e = await startE2e();
    ada = await e2e.device('ada', { width: 390, height: 844 });
    ben = await e2e.device('ben', { width: 390, height: 844 });
  });
  after(async () => {
    await e2e?.close();
  });

  it('adds a photo with a crop step and shows it on a profile', async () => {
    const { page } = ada;
    await ada.signUp(adaName);
    await setDisplayName(page, 'Ada Lovelace');
    await goTo(page, 'Fields', 'fields');
    await page.getByRole('button', { name: 'Add a detail' }).click();
    await page.locator('#field-types').getByRole('button', { name: 'Photo', exact: true }).click();
    const picture = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#c2410c' } }).jpeg().toBuffer();
    await page.locator('#field-editor input[type="file"]').setInputFiles({ name: 'me.jpg', mimeType: 'image/jpeg', buffer: picture });
    await page.getByRole('img', { name: 'The part of the picture your card shows' }).waitFor();
    await page.getByLabel('Zoom').fill('40');
    await ada.screens('photo-crop');
    await page.getByRole('button', { name: 'Use this photo' }).click();
    await page.locator('#fields li[data-type="photo"] img').waitFor();
    await ada.screens('fields-with-photo');

    await goTo(page, 'Profiles', 'profiles');
    await page.getByLabel('New profile').fill('Work');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#profiles [data-profile][aria-pressed="true"]', { hasText: 'Work' }).waitFor();
    await page.getByRole('button', { name: 'Show Photo in Work' }).click();
    const face = page.locator('.profile-preview .vcard img.avatar.photo');
    await face.waitFor();
    assert.match((await face.getAttribute('src'))!, /^data:image\/jpeg;base64,/);
    assert.equal(await page.locator('.profile-preview .vcard li[data-type="photo"]').count(), 0, 'the face, not a row of details');
  });

  it('a follower approved onto Work sees the face on the card', async () => {
    await ben.signUp(`ben${stamp}`);
    await goTo(ben.page, 'Contacts', 'contacts');
    await ben.page.getByLabel('Their username').fill(adaName);
    await ben.page.getByRole('button', { name: 'Ask to follow' }).click();

    await goTo(ada.page, 'People', 'people');
    await ada.page.getByRole('button', { name: /^Approve ben/ }).click();

    const face = ben.page.locator('.vcard img.avatar.photo');
    await face.waitFor({ timeout: 15_000 });
    assert.equal(await face.getAttribute('alt'), 'Photo of Ada Lovelace');
    assert.equal(await ben.page.locator('.vcard .vcard-empty').count(), 0, 'a card with a face does not say it shows nothing');
    await ben.screens('contact-with-photo');
  });
});
