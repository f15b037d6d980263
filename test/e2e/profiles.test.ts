// The Profiles screen and the public page in Chromium: two profiles, fields shown and ordered,
// the preview following an edit made in another tab without a reload, one profile made the
// public card, and /@username opened signed out with "Add to contacts" (a vCard 3.0 file).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startE2e } from '../helpers/browser.js';
import { addField, editField, goTo, setDisplayName } from '../helpers/web-ui.js';
import type { Device, E2e } from '../helpers/browser.js';

describe('web app: profiles and the public card (Chromium)', { timeout: 120_000 }, () => {
  let e2e: E2e;
  let desk: Device;
  const username = `grace${Date.now().toString(36)}`;

  before(async () => {
    e2e = await startE2e();
    desk = await e2e.device('desk', { width: 1280, height: 900 });
  });
  after(async () => {
    await e2e?.close();
  });


  it('signs up and adds the fields the profiles will show', async () => {
    const { page } = desk;
    await desk.signUp(username);
    await setDisplayName(page, 'Grace Hopper');
    await goTo(page, 'Fields', 'fields');
    await addField(page, 'Phone', async (editor) => {
      await editor.getByLabel('Phone', { exact: true }).fill('+1 202 456 1111');
      await editor.getByLabel(/^Label/).fill('work');
    }, '202 456 1111');
    await addField(page, 'E-mail', (editor) => editor.getByLabel('E-mail', { exact: true }).fill('grace@example.com'), 'grace@example.com');
    await addField(page, 'Nickname', (editor) => editor.getByLabel('Nickname', { exact: true }).fill('Amazing Grace'), 'Amazing Grace');
  });

  it('adds a birthday, the month picked by its name, and shows it back in words', async () => {
    const { page } = desk;
    // The month is a list of names whose values are text; the server takes a number, and the
    // form once sent "3" and was refused with a generic sentence.
    await addField(page, 'Birthday', async (editor) => {
      await editor.getByLabel('Day', { exact: true }).fill('9');
      await editor.getByLabel('Month', { exact: true }).selectOption({ label: 'December' });
      await editor.getByLabel(/^Year/).fill('1906');
    }, 'December 9, 1906');
    // The keyboard lands on what was added, not on the page.
    await page.waitForFunction(() => document.activeElement?.matches('#fields li[data-type="birthday"]') === true);
    // Stored, not only shown: it is there after a reload.
    await page.reload();
    await page.locator('#fields li', { hasText: 'December 9, 1906' }).waitFor();
  });

  it('keeps a phone extension, typed or pasted, through the save, and shows it back', async () => {
    const { page } = desk;
    // Typed key by key: the formatter once took the extension's digits into the number.
    await addField(page, 'Phone', async (editor) => {
      const box = editor.getByLabel('Phone', { exact: true });
      await box.pressSequentially('+1 212 555 0199 ext. 42');
      assert.match(await box.inputValue(), / ext\. 42$/, 'the extension stays as typed');
    }, '+1 212 555 0199 ext. 42');
    // Pasted whole: it was silently dropped. Shown back as the number's country writes it.
    await addField(page, 'Phone', async (editor) => {
      await editor.getByLabel('Phone', { exact: true }).fill('+44 20 7946 0958 x 7');
      await editor.getByLabel(/^Label/).fill('office');
    }, '+44 20 7946 0958 x7');
    await page.reload();
    await page.locator('#fields li', { hasText: '+1 212 555 0199 ext. 42' }).waitFor();
    // Editing starts from the number with its extension, so saving again keeps it.
    await editField(page, 'Office', async (form) => assert.equal(await form.getByLabel('Phone', { exact: true }).inputValue(), '+44 20 7946 0958 x7'), '+44 20 7946 0958 x7');
  });

  it('creates two profiles, shows and orders fields, and previews the card as its audience gets it', async () => {
    const { page } = desk;
    await goTo(page, 'Profiles', 'profiles');
    await page.getByText('No profiles yet').waitFor();
    await desk.shot('20-profiles-empty');

    await page.getByLabel('New profile').fill('Work');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#profiles [data-profile][aria-pressed="true"]', { hasText: 'Work' }).waitFor();
    await page.getByRole('button', { name: /^Show Phone work in Work/ }).click();
    await page.getByRole('button', { name: /^Show E-mail in Work/ }).click();
    const preview = page.locator('.profile-preview .vcard');
    await preview.locator('li[data-type="email"]').waitFor();
    assert.deepEqual(await preview.locator('li').evaluateAll((items) => items.map((li) => li.getAttribute('data-type'))), ['phone', 'email']);
    // Email first: the preview follows the order.
    await page.getByRole('button', { name: 'Move E-mail up' }).click();
    await page.waitForFunction(() => document.querySelector('.profile-preview .vcard li')?.getAttribute('data-type') === 'email');
    assert.equal(await preview.locator('.vcard-name').textContent(), 'Grace Hopper');
    assert.equal(await preview.locator('li[data-type="nickname"]').count(), 0, 'a field the profile does not show is not on its card');

    await page.getByLabel('New profile').fill('Family');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#profiles [data-profile][aria-pressed="true"]', { hasText: 'Family' }).waitFor();
    await page.getByRole('button', { name: /^Show Nickname in Family/ }).click();
    await preview.locator('li[data-type="nickname"]').waitFor();
    assert.equal(await preview.locator('li').count(), 1);
    await page.locator('#profiles [data-profile]', { hasText: 'Work' }).click();
    await preview.locator('li[data-type="phone"]').waitFor();
  });

  it('shows an edit made in another tab in the preview, without a reload', async () => {
    const { page } = desk;
    const other = await desk.context.newPage();
    await other.goto(`${e2e.origin}/fields`);
    await other.locator('main[data-view="fields"]').waitFor();
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    await editField(other, 'Work', (form) => form.getByLabel('Phone', { exact: true }).fill('+1 202 456 1414'), '202 456 1414');
    await page.locator('.profile-preview .vcard li[data-type="phone"]', { hasText: '202 456 1414' }).waitFor();
    assert.equal(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 42, 'the same page, not a reload');
    await other.close();
  });

  it('makes Work the public card and links to it', async () => {
    const { page } = desk;
    await page.getByLabel(/^Public card/).check();
    // Asked once, with the card strangers would see.
    await page.locator('#public-confirm .vcard li[data-type="email"]').waitFor();
    await page.getByRole('button', { name: 'Make it public' }).click();
    await page.locator('#profiles [data-profile]', { hasText: 'Public' }).waitFor();
    await page.locator('#open-public').waitFor();
    await desk.shot('21-profiles-desktop');
    // The same screen on a phone: one column, the preview under the editor.
    await page.setViewportSize({ width: 390, height: 844 });
    await desk.shot('22-profiles-390');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('opens /@username signed out, on a phone and a desktop, and adds the card to contacts as vCard 3.0', async () => {
    const visitor = await e2e.device('visitor', { width: 390, height: 844 });
    const { page } = visitor;
    await page.goto(`${e2e.origin}/@${username}`);
    await visitor.view('public-card');
    const card = page.locator('.vcard');
    assert.equal(await card.locator('.vcard-name').textContent(), 'Grace Hopper');
    assert.deepEqual(await card.locator('li').evaluateAll((items) => items.map((li) => li.getAttribute('data-type'))), ['email', 'phone']);
    assert.equal(await card.locator('li[data-type="nickname"]').count(), 0);
    assert.equal(await page.getByRole('link', { name: 'Sign in' }).count(), 1, 'the visitor is not signed in');
    await visitor.shot('23-public-card-390');

    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Add to contacts' }).click();
    const file = await download;
    assert.equal(file.suggestedFilename(), `${username}.vcf`);
    const vcard = readFileSync((await file.path())!, 'utf8');
    assert.match(vcard, /^BEGIN:VCARD\r\nVERSION:3\.0\r\n/);
    assert.match(vcard, /\r\nFN:Grace Hopper\r\n/);
    assert.match(vcard, /\r\nEMAIL;TYPE=INTERNET:grace@example\.com\r\n/);

    await page.setViewportSize({ width: 1280, height: 900 });
    await visitor.shot('24-public-card-desktop');
    await page.goto(`${e2e.origin}/@nobody-here`);
    await page.getByText('No public card here').waitFor();
    await visitor.shot('25-public-card-missing');
  });

  it('asks before deleting a profile: "Keep it" takes the question back, "Delete profile" deletes it', async () => {
    const { page } = desk;
    await page.locator('#profiles [data-profile]', { hasText: 'Family' }).click();
    await page.getByRole('button', { name: 'Delete this profile…' }).click();
    const confirm = page.getByRole('group', { name: 'Delete “Family”?' });
    await confirm.getByText('The people who see it lose its card. This cannot be undone.').waitFor();
    await desk.screens('profiles-delete-confirm');
    await confirm.getByRole('button', { name: 'Keep it' }).click();
    await confirm.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Delete this profile…' }).click();
    await confirm.getByRole('button', { name: 'Delete profile' }).click();
    await page.getByText('Profile “Family” deleted.').waitFor();
    await page.locator('#profiles [data-profile]', { hasText: 'Family' }).waitFor({ state: 'detached' });
  });
});
