// Sharing, people and contacts in Chromium, two people in two browser contexts: Alice makes a
// Work profile with her phone and a share link that needs her approval; Bob opens the link signed
// out, creates an account, comes back to it and subscribes; Alice approves him on People; Bob's
// open Contacts screen shows her card, and her next phone edit, without a reload; Bob writes a
// private note and labels, filters by a label and exports every card as one vCard 3.0 file.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startE2e } from '../helpers/browser.js';
import { addField, editField, goTo, setDisplayName as setName } from '../helpers/web-ui.js';
import type { Device, E2e } from '../helpers/browser.js';

const MARKER = () => (window as unknown as { marker?: number }).marker;

describe('web app: share links, people and contacts (Chromium)', { timeout: 180_000 }, () => {
  let e2e: E2e;
  let alice: Device;
  let bob: Device;
  const stamp = Date.now().toString(36);
  const aliceName = `alice${stamp}`;
  const bobName = `bob${stamp}`;
  let linkUrl = '';

  before(async () => {
    e2e = await startE2e();
    alice = await e2e.device('alice', { width: 390, height: 844 });
    bob = await e2e.device('bob', { width: 390, height: 844 });
  });
  after(async () => {
    await e2e?.close();
  });

  /** A screenshot without the passing status message over the page. */
  async function shot(device: Device, name: string): Promise<void> {
    await device.page.evaluate(() => {
      const status = document.getElementById('status');
      if (status) status.textContent = '';
    });
    await device.shot(name);
  }

  async function signUp(device: Device, username: string): Promise<void> {
    const { page } = device;
    await page.getByLabel('Choose a username').fill(username);
    await page.getByText(`“${username}” is available.`).waitFor();
    await page.getByLabel('Choose a username').press('Enter');
  }

  const setDisplayName = (device: Device, name: string) => setName(device.page, name);

  it('Alice: signs up, adds her phone, and is told to make a profile before sharing', async () => {
    const { page } = alice;
    await page.goto(`${e2e.origin}/`);
    await alice.view('welcome');
    await signUp(alice, aliceName);
    await alice.view('account');
    await setDisplayName(alice, 'Alice Liddell');

    await goTo(page, 'Fields', 'fields');
    await addField(page, 'Phone', async (editor) => {
      await editor.getByLabel('Phone', { exact: true }).fill('+1 202 456 1111');
      await editor.getByLabel(/^Label/).fill('mobile');
    }, '202 456 1111');

    await goTo(page, 'Share', 'share');
    await alice.view('share');
    await page.getByRole('heading', { name: 'Create a profile first' }).waitFor();
    await shot(alice, '30-share-no-profile-390');
    await page.getByRole('link', { name: 'Go to Profiles' }).click();
    await alice.view('profiles');
    await page.getByLabel('New profile').fill('Work');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#profiles [data-profile][aria-pressed="true"]', { hasText: 'Work' }).waitFor();
    await page.getByRole('button', { name: /^Show Phone mobile in Work/ }).click();
    await page.locator('.profile-preview .vcard li[data-type="phone"]').waitFor();
  });

  it('Alice: creates a share link that needs her approval and shows its QR code and link', async () => {
    const { page, context } = alice;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: e2e.origin });
    await goTo(page, 'Share', 'share');
    await alice.view('share');
    assert.equal(await page.getByLabel('Profile', { exact: true }).inputValue() !== '', true);
    assert.equal(await page.locator('#share-profile option').textContent(), 'Work');
    await page.getByLabel('Link expires').selectOption({ label: 'In 30 days' });
    await page.getByLabel('Max uses (optional)').fill('5');
    assert.equal(await page.getByLabel(/^Approve automatically/).isChecked(), false);
    await page.getByRole('button', { name: 'Create link' }).click();

    const panel = page.locator('#share-qr');
    await panel.locator('svg').waitFor();
    linkUrl = (await page.locator('#share-url').textContent()) ?? '';
    assert.match(linkUrl, new RegExp(`^${e2e.origin}/s/#[A-Za-z0-9_-]{20,}$`));
    assert.match(await panel.textContent() ?? '', /You approve each person · Used 0 of 5 times · Works until/);
    const links = page.locator('#share-links li[data-share-link]');
    assert.equal(await links.count(), 1);
    assert.match(await links.first().textContent() ?? '', /“Work”.*You approve each person.*Used 0 of 5 times/);

    await page.getByRole('button', { name: 'Copy link' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), linkUrl);
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(alice, '31-share-qr-390');

    await page.setViewportSize({ width: 1280, height: 900 });
    await shot(alice, '31-share-qr-desktop');
    await page.setViewportSize({ width: 390, height: 844 });
  });

  it('Bob: opens the link signed out, creates an account, comes back and subscribes', async () => {
    const { page } = bob;
    await page.goto(linkUrl);
    await bob.view('share-link');
    await page.getByRole('heading', { name: `Alice Liddell (@${aliceName}) wants to share their card with you` }).waitFor();
    assert.doesNotMatch(await page.locator('main').innerText(), /Work/, 'the profile’s name is Alice’s alone');
    await page.getByText('Alice Liddell approves each request: you see the card once they do.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Follow', exact: true }).count(), 0, 'signed out: no Follow');
    await shot(bob, '32-share-link-signed-out-390');

    await page.getByRole('link', { name: 'Create an account' }).click();
    await bob.view('welcome');
    // The sign-up field takes focus once the screen has drawn (waited for: a busy machine draws late).
    await page.waitForFunction(() => document.activeElement?.getAttribute('name') === 'new-username');
    await signUp(bob, bobName);
    // Back on the link's page, now signed in.
    await bob.view('share-link');
    assert.equal(new URL(page.url()).pathname, new URL(linkUrl).pathname);
    await page.getByText(`Signed in as @${bobName}.`).waitFor();
    await shot(bob, '33-share-link-390');

    await page.getByRole('button', { name: 'Follow', exact: true }).click();
    await bob.view('contacts');
    const waiting = page.locator('#pending li[data-status="pending"]');
    await waiting.waitFor();
    await page.getByRole('heading', { name: 'Waiting for approval' }).waitFor();
    assert.match(await waiting.textContent() ?? '', /Alice Liddell.*has not approved your request yet/);
    assert.equal(await page.locator('li.contact').count(), 0, 'no card before approval');
    await shot(bob, '34-contacts-waiting-390');

    await setDisplayName(bob, 'Bob Builder');
    await goTo(page, 'Contacts', 'contacts');
    await bob.view('contacts');
    await page.locator('#pending li[data-status="pending"]').waitFor();
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
  });

  it('Alice: sees the request on People and approves Bob onto Work', async () => {
    const { page } = alice;
    await goTo(page, 'People', 'people');
    await alice.view('people');
    const request = page.locator('#requests li[data-request]');
    await request.waitFor();
    assert.match(await request.textContent() ?? '', new RegExp(`Bob Builder.*@${bobName}`));
    await shot(alice, '35-people-request-390');

    await request.getByLabel('Approve onto').selectOption({ label: 'Work' });
    await page.getByRole('button', { name: 'Approve Bob Builder' }).click();
    const group = page.locator('#subscribers [data-profile-group]', { hasText: '“Work”' });
    await group.locator('li[data-subscriber]', { hasText: 'Bob Builder' }).waitFor();
    await page.getByText('No requests waiting.').waitFor();
    assert.match(await group.locator('h3').textContent() ?? '', /1 person/);
    await shot(alice, '36-people-390');
  });

  it('Bob: his open Contacts screen shows Alice’s card, and then her new number, without a reload', async () => {
    const { page } = bob;
    const phone = page.locator('li.contact .vcard li[data-type="phone"]');
    await phone.filter({ hasText: '202 456 1111' }).waitFor();
    assert.equal(await page.locator('li.contact .vcard-name').textContent(), 'Alice Liddell');
    assert.equal(await page.locator('#pending').count(), 0, 'no longer waiting');
    assert.equal(await page.evaluate(MARKER), 42, 'the same page, not a reload');

    // Alice edits her phone on the Fields screen.
    await goTo(alice.page, 'Fields', 'fields');
    await editField(alice.page, 'Mobile', (form) => form.getByLabel('Phone', { exact: true }).fill('+1 202 456 1414'), '202 456 1414');

    await phone.filter({ hasText: '202 456 1414' }).waitFor();
    assert.equal(await phone.filter({ hasText: '202 456 1111' }).count(), 0);
    assert.equal(await page.evaluate(MARKER), 42, 'still the same page, not a reload');
  });

  it('Bob: writes a private note and labels, filters by a label, on a phone and a desktop', async () => {
    const { page } = bob;
    const contact = page.locator('li.contact', { hasText: 'Alice Liddell' });
    await contact.getByText('Add a note or labels').click();
    await contact.getByLabel('Private note').fill('Met at the spring conference.\nPrefers calls after 10.');
    await contact.getByLabel('Labels').fill('conference, Work, conference');
    await contact.getByRole('button', { name: 'Save' }).click();
    await contact.locator('.contact-note', { hasText: 'Met at the spring conference.' }).waitFor();
    assert.deepEqual(await contact.locator('.labels li').allTextContents(), ['conference', 'Work']);

    const chips = page.locator('#label-filter [data-label]');
    await chips.filter({ hasText: 'Work' }).waitFor();
    assert.deepEqual(await chips.evaluateAll((buttons) => buttons.map((b) => b.getAttribute('data-label'))), ['', 'conference', 'Work']);
    await chips.filter({ hasText: 'Work' }).click();
    await page.locator('#label-filter [data-label="Work"][aria-pressed="true"]').waitFor();
    assert.equal(new URL(page.url()).searchParams.get('label'), 'Work');
    // The list labelled Work is read when chosen.
    await bob.view('contacts');
    await page.locator('li.contact').first().waitFor();
    assert.equal(await page.locator('li.contact').count(), 1);
    assert.equal(await page.evaluate(MARKER), 42);
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(bob, '37-contacts-390');
    // The contacts home at both widths, light and dark (the README shows the phone's).
    await bob.screens('contacts-home');

    await page.setViewportSize({ width: 1280, height: 900 });
    await shot(bob, '38-contacts-desktop');
    await page.setViewportSize({ width: 390, height: 844 });
  });

  it('Bob: exports every contact as one vCard 3.0 file', async () => {
    const { page } = bob;
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export all contacts (.vcf)' }).click();
    const file = await download;
    assert.equal(file.suggestedFilename(), 'vid-contacts.vcf');
    const vcard = readFileSync((await file.path())!, 'utf8');
    assert.match(vcard, /^BEGIN:VCARD\r\nVERSION:3\.0\r\n/);
    assert.match(vcard, /\r\nFN:Alice Liddell\r\n/);
    assert.match(vcard, /\r\nTEL[^:\r\n]*:[^\r\n]*202[^\r\n]*456[^\r\n]*1414\r\n/);
    assert.match(vcard, /END:VCARD\r\n$/);
  });

  it('Alice: moves Bob to another profile on People; his card follows without a reload', async () => {
    const { page } = alice;
    await goTo(page, 'Profiles', 'profiles');
    await alice.view('profiles');
    await page.getByLabel('New profile').fill('Family');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#profiles [data-profile][aria-pressed="true"]', { hasText: 'Family' }).waitFor();

    await goTo(page, 'People', 'people');
    await alice.view('people');
    const row = page.locator('#subscribers li[data-subscriber]', { hasText: 'Bob Builder' });
    await row.getByLabel('Move to').selectOption({ label: 'Family' });
    await shot(alice, '36-people-move-390');
    await page.getByRole('button', { name: 'Move Bob Builder' }).click();
    await page.locator('#subscribers [data-profile-group]', { hasText: '“Family”' }).locator('li', { hasText: 'Bob Builder' }).waitFor();
    assert.equal(await page.locator('#subscribers [data-profile-group]', { hasText: '“Work”' }).count(), 0);

    // Family shows no field: Bob's open screen loses the phone number, and keeps his note.
    const contact = bob.page.locator('li.contact', { hasText: 'Alice Liddell' });
    await contact.getByText('Alice Liddell shares no details with you yet.').waitFor();
    assert.equal(await contact.locator('.vcard li[data-type="phone"]').count(), 0);
    await contact.locator('.contact-note', { hasText: 'Met at the spring conference.' }).waitFor();
    assert.equal(await bob.page.evaluate(MARKER), 42, 'the same page, not a reload');
  });

  it('Carol: asks by username; Alice’s open People screen shows it, she denies and blocks, then unblocks', async () => {
    const carol = await e2e.device('carol', { width: 390, height: 844 });
    const carolName = `carol${stamp}`;
    await carol.page.goto(`${e2e.origin}/`);
    await carol.view('welcome');
    await signUp(carol, carolName);
    await carol.view('account');
    await goTo(carol.page, 'Contacts', 'contacts');
    await carol.view('contacts');
    await carol.page.getByRole('heading', { name: 'No contacts yet' }).waitFor();

    await carol.page.getByLabel('Their username').fill('nobody-by-this-name');
    await carol.page.getByRole('button', { name: 'Ask to follow' }).click();
    await carol.page.getByText('Nobody is called @nobody-by-this-name. Check the spelling').waitFor();

    const { page } = alice;
    await goTo(page, 'People', 'people');
    await alice.view('people');
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 7));
    await carol.page.getByLabel('Their username').fill(`@${aliceName}`);
    await carol.page.getByLabel('Message (optional)').fill('Hi Alice, Carol from the book club.');
    await carol.page.getByRole('button', { name: 'Ask to follow' }).click();
    await carol.page.locator('#pending li[data-status="pending"]', { hasText: 'Alice Liddell' }).waitFor();

    // Alice's open People screen: the request arrives through a signal.
    const request = page.locator('#requests li[data-request]', { hasText: carolName });
    await request.locator('.request-message', { hasText: 'Carol from the book club' }).waitFor();
    assert.equal(await page.evaluate(MARKER), 7, 'the same page, not a reload');
    await page.getByRole('button', { name: `Deny and block ${carolName}` }).click();
    await page.locator('#blocked li[data-blocked]', { hasText: carolName }).waitFor();
    await page.getByText('No requests waiting.').waitFor();
    // Refused in silence (PRODUCT §4): Carol's request reads as one not yet answered.
    await carol.page.locator('#pending li', { hasText: 'Alice Liddell has not approved your request yet' }).waitFor();
    assert.equal(await carol.page.getByText('did not approve').count(), 0);

    await page.getByRole('button', { name: `Unblock ${carolName}` }).click();
    await page.getByText('Nobody. When you deny or revoke someone').waitFor();
  });

  it('a revoked link and an unknown one say so plainly', async () => {
    const { page } = alice;
    await goTo(page, 'Share', 'share');
    await alice.view('share');
    const link = page.locator('#share-links li[data-share-link]');
    assert.match(await link.textContent() ?? '', /Used 1 of 5 times/);
    await link.getByRole('button', { name: /^Revoke/ }).click();
    await page.getByText('No links yet.').waitFor();

    const visitor = await e2e.device('visitor', { width: 390, height: 844 });
    await visitor.page.goto(linkUrl);
    await visitor.view('share-link');
    await visitor.page.getByRole('heading', { name: 'This link no longer works' }).waitFor();
    await shot(visitor, '39-share-link-gone-390');
    await visitor.page.goto(`${e2e.origin}/s/not-a-real-token`);
    await visitor.view('share-link');
    await visitor.page.getByRole('heading', { name: 'This link is not valid' }).waitFor();
  });
});
