// The sharing half of the web app in Chromium, as two people meet it on their phones: Alice makes
// two profiles and a share link to Work, labelled where she hands it out; Bob opens it (it names
// Alice and never her profile), signs up and subscribes; Alice approves him on People, where the
// request names the link and Approve is set to its profile; an edit of hers reaches Bob's open
// Contacts screen without a reload and says what changed ("new phone number"); her public card
// opens signed out. Every screen is saved at 390 and 1280 px, light and dark, and checked by axe-core.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startE2e } from '../helpers/browser.js';
import type { Device, E2e } from '../helpers/browser.js';

describe('web app: profiles, a share link, subscribing and a live edit (Chromium)', { timeout: 240_000 }, () => {
  let e2e: E2e;
  let alice: Device;
  let bob: Device;
  const aliceName = `alice${Date.now().toString(36)}`;
  const bobName = `bob${Date.now().toString(36)}`;
  let linkUrl = '';

  before(async () => {
    e2e = await startE2e();
    alice = await e2e.device('alice', { width: 390, height: 844 });
    bob = await e2e.device('bob', { width: 390, height: 844 });
  });
  after(async () => {
    await e2e?.close();
  });

  /** A place in the navigation: the bar, or the phone's "More" list. */
  async function goTo(device: Device, name: string, view: string): Promise<void> {
    const nav = device.page.locator('#nav');
    // A place with requests waiting reads "People 2 waiting".
    const link = nav.getByRole('link', { name: new RegExp(`^${name}( \\d+\\+? waiting)?$`) });
    if (!(await link.isVisible())) await nav.getByRole('button', { name: 'More' }).click();
    await link.click();
    await device.view(view);
  }

  async function signUp(device: Device, username: string): Promise<void> {
    const { page } = device;
    await page.getByLabel('Choose a username').fill(username);
    await page.getByText(`“${username}” is available.`).waitFor();
    await page.getByLabel('Choose a username').press('Enter');
  }

  async function setName(device: Device, displayName: string): Promise<void> {
    const { page } = device;
    await goTo(device, 'Account', 'account');
    await page.getByLabel('Display name').fill(displayName);
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('heading', { name: displayName }).waitFor();
  }

  it('Alice: signs up, adds her phone, and is told to make a profile first', async () => {
    const { page } = alice;
    await page.goto(`${e2e.origin}/`);
    await alice.view('welcome');
    await signUp(alice, aliceName);
    await alice.view('account');
    await setName(alice, 'Alice Liddell');

    await goTo(alice, 'Fields', 'fields');
    await page.getByRole('button', { name: 'Add a detail' }).click();
    await page.locator('#field-types').getByRole('button', { name: 'Phone', exact: true }).click();
    const editor = page.locator('#field-editor');
    await editor.getByLabel('Phone', { exact: true }).fill('+1 202 456 1111');
    await editor.getByLabel(/^Label/).fill('mobile');
    await editor.getByRole('button', { name: /^Add / }).click();
    await page.locator('#fields li', { hasText: '202 456 1111' }).waitFor();

    await goTo(alice, 'Share', 'share');
    await page.getByRole('heading', { name: 'Create a profile first' }).waitFor();
    await alice.screens('sharing-share-no-profile');

    await goTo(alice, 'Profiles', 'profiles');
    await page.getByRole('heading', { name: 'No profiles yet' }).waitFor();
    await alice.screens('sharing-profiles-empty');
  });

  it('Alice: makes a Work profile with her phone, its name as long as the server takes', async () => {
    const { page } = alice;
    const box = page.getByLabel('New profile');
    assert.equal(await box.getAttribute('maxlength'), '64', 'a profile name is capped at 64 characters: the box says so');
    // Family first, so it is the first profile every list shows.
    await box.fill('Family');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#profiles [data-profile][aria-pressed="true"]', { hasText: 'Family' }).waitFor();
    await box.fill('Work');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#profiles [data-profile][aria-pressed="true"]', { hasText: 'Work' }).waitFor();
    await page.getByRole('button', { name: /^Show Phone mobile in Work/ }).click();
    await page.locator('.profile-preview .vcard li[data-type="phone"]', { hasText: '202 456 1111' }).waitFor();
    assert.equal(await page.locator('.profile-preview .vcard-name').textContent(), 'Alice Liddell');
    await alice.screens('sharing-profiles');
  });

  it('Alice: creates a link she approves herself, with its QR code', async () => {
    const { page } = alice;
    await goTo(alice, 'Share', 'share');
    assert.deepEqual(await page.locator('#share-profile option').allTextContents(), ['Family', 'Work']);
    await page.locator('#share-profile').selectOption({ label: 'Work' });
    await page.getByLabel(/^Where you hand it out/).fill('Conference badge');
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.locator('#share-qr svg').waitFor();
    linkUrl = (await page.locator('#share-url').textContent()) ?? '';
    assert.match(linkUrl, new RegExp(`^${e2e.origin}/s/#[A-Za-z0-9_-]{20,}$`));
    await page.locator('#share-links li[data-share-link]').waitFor();
    await alice.screens('sharing-share');
  });

  it('Bob: the link names Alice and never her profile; he signs up and subscribes', async () => {
    const { page } = bob;
    // A link made before the token moved into the fragment opens the same page, which moves it there.
    await page.goto(linkUrl.replace('/s/#', '/s/'));
    await bob.view('share-link');
    await page.getByRole('heading', { name: `Alice Liddell (@${aliceName}) wants to share their card with you` }).waitFor();
    assert.equal(page.url(), linkUrl);
    await page.goto(`${e2e.origin}/`);
    await page.goto(linkUrl);
    await bob.view('share-link');
    await page.getByRole('heading', { name: `Alice Liddell (@${aliceName}) wants to share their card with you` }).waitFor();
    await page.getByText('Alice Liddell approves each request: you see the card once they do.').waitFor();
    assert.doesNotMatch(await page.locator('main').innerText(), /Work/, 'the profile’s name is Alice’s alone');
    await bob.screens('sharing-share-link-signed-out');

    await page.getByRole('link', { name: 'Create an account' }).click();
    await bob.view('welcome');
    await signUp(bob, bobName);
    // Back on the link's page, now signed in.
    await bob.view('share-link');
    assert.equal(page.url(), linkUrl);
    await page.getByText(`Signed in as @${bobName}.`).waitFor();
    assert.doesNotMatch(await page.locator('main').innerText(), /Work/);
    await bob.screens('sharing-share-link');

    await page.getByRole('button', { name: 'Follow', exact: true }).click();
    await bob.view('contacts');
    await page.locator('#pending li[data-status="pending"]', { hasText: 'Alice Liddell' }).waitFor();
    assert.equal(await page.locator('li.contact').count(), 0, 'no card before approval');
    await bob.screens('sharing-contacts-waiting');
    await setName(bob, 'Bob Builder');
    await goTo(bob, 'Contacts', 'contacts');
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
  });

  it('Alice: sees the request on People and approves Bob onto Work', async () => {
    const { page } = alice;
    await goTo(alice, 'People', 'people');
    const request = page.locator('#requests li[data-request]', { hasText: 'Bob Builder' });
    await request.waitFor();
    // The request says which link it came through, and Approve is set to that link's profile,
    // not to Family, the first one listed: one tap gives Bob the card the link promised.
    await request.getByText('through your link “Conference badge”').waitFor();
    const picker = request.getByLabel('Approve onto');
    assert.equal(await picker.evaluate((select) => (select as HTMLSelectElement).selectedOptions[0]?.textContent), 'Work');
    await alice.screens('sharing-people-request');
    await page.getByRole('button', { name: 'Approve Bob Builder' }).click();
    await page.locator('#subscribers [data-profile-group]', { hasText: '“Work”' }).locator('li[data-subscriber]', { hasText: 'Bob Builder' }).waitFor();
    await page.getByText('No requests waiting.').waitFor();
    await alice.screens('sharing-people');
  });

  it('Bob: his open Contacts screen shows her card, then her new number and what changed, without a reload', async () => {
    const { page } = bob;
    const phone = page.locator('li.contact .vcard li[data-type="phone"]');
    await phone.filter({ hasText: '202 456 1111' }).waitFor();
    assert.equal(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 42, 'the same page, not a reload');

    await goTo(alice, 'Fields', 'fields');
    await alice.page.getByRole('button', { name: 'Edit Mobile', exact: true }).click();
    const form = alice.page.locator('#fields li.editing form');
    await form.getByLabel('Phone', { exact: true }).fill('+1 202 456 1414');
    await form.getByRole('button', { name: 'Save', exact: true }).click();

    await phone.filter({ hasText: '202 456 1414' }).waitFor();
    await page.locator('li.contact [data-card-change]', { hasText: 'Alice Liddell updated their card: new phone number.' }).waitFor();
    assert.equal(await phone.filter({ hasText: '202 456 1111' }).count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 42, 'still the same page');
    await bob.screens('sharing-contacts');
  });

  it('the public card opens signed out, and a missing one says so', async () => {
    const { page } = alice;
    await goTo(alice, 'Profiles', 'profiles');
    await page.locator('#profiles [data-profile]', { hasText: 'Work' }).click();
    await page.locator('#profiles [data-profile][aria-pressed="true"]', { hasText: 'Work' }).waitFor();
    // Making a card public is asked once, showing the card strangers will see; keeping it
    // private changes nothing.
    await page.getByLabel(/^Public card/).check();
    const confirm = page.locator('#public-confirm');
    await confirm.locator('.vcard li[data-type="phone"]', { hasText: '202 456 1414' }).waitFor();
    await alice.screens('sharing-profiles-public-confirm');
    await confirm.getByRole('button', { name: 'Keep it private' }).click();
    await confirm.waitFor({ state: 'detached' });
    assert.equal(await page.getByLabel(/^Public card/).isChecked(), false);
    assert.equal(await page.locator('#profiles [data-profile]', { hasText: 'Public' }).count(), 0);
    await page.getByLabel(/^Public card/).check();
    await confirm.getByRole('button', { name: 'Make it public' }).click();
    await page.locator('#profiles [data-profile]', { hasText: 'Public' }).waitFor();
    await page.locator('#open-public').waitFor();

    const visitor = await e2e.device('visitor', { width: 390, height: 844 });
    await visitor.page.goto(`${e2e.origin}/@${aliceName}`);
    await visitor.view('public-card');
    await visitor.page.locator('.vcard li[data-type="phone"]', { hasText: '202 456 1414' }).waitFor();
    await visitor.screens('sharing-public-card');
    await visitor.page.goto(`${e2e.origin}/@nobody-here`);
    await visitor.page.getByRole('heading', { name: 'No public card here' }).waitFor();
    await visitor.screens('sharing-public-card-missing');
    await visitor.page.goto(`${e2e.origin}/s/not-a-link`);
    await visitor.page.getByRole('heading', { name: 'This link is not valid' }).waitFor();
    await visitor.screens('sharing-share-link-invalid');
  });

  it('Carol, signed in, follows Alice from her public card; Alice sees a request that came through no link', async () => {
    const carol = await e2e.device('carol', { width: 390, height: 844 });
    await carol.signUp(`carol${Date.now().toString(36)}`);
    await setName(carol, 'Carol Danvers');
    const { page } = carol;
    await page.goto(`${e2e.origin}/@${aliceName}`);
    await carol.view('public-card');
    await page.getByRole('heading', { level: 1, name: 'Alice Liddell' }).waitFor();
    await page.getByText('Once they approve, it stays current in your contacts').waitFor();
    await carol.screens('sharing-public-card-signed-in');
    await page.getByRole('button', { name: 'Follow' }).click();
    await page.getByText('Request sent. Alice Liddell’s card appears in your contacts once they approve.').waitFor();
    await page.getByRole('button', { name: 'Open in your contacts' }).click();
    await carol.view('contacts');
    await page.locator('#pending li[data-status="pending"]', { hasText: 'Alice Liddell' }).waitFor();

    await goTo(alice, 'People', 'people');
    const request = alice.page.locator('#requests li[data-request]', { hasText: 'Carol Danvers' });
    await request.waitFor();
    assert.doesNotMatch(await request.innerText(), /through/, 'a request by username names no link');
  });

  it('Bob finds Alice by a part of her name typed without care, and More closes on Escape', async () => {
    const { page } = bob;
    await goTo(bob, 'Contacts', 'contacts');
    const search = page.getByLabel('Find a contact');
    await search.fill('LIDD');
    await page.locator('li.contact', { hasText: 'Alice Liddell' }).waitFor();
    await search.fill('nobody at all');
    await page.getByRole('heading', { name: 'Nobody found for “nobody at all”' }).waitFor();
    await bob.screens('sharing-contacts-nobody-found');
    await page.getByRole('button', { name: 'Clear the search' }).click();
    await page.locator('li.contact', { hasText: 'Alice Liddell' }).waitFor();

    const more = page.locator('#nav').getByRole('button', { name: 'More' });
    await more.click();
    await page.locator('#nav-more.open').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('#nav-more.open').waitFor({ state: 'detached' });
    assert.equal(await more.evaluate((button) => button === document.activeElement), true, 'the keyboard is back on More');
  });

  it('each side is asked before it ends the sharing: Bob keeps following, Alice revokes him', async () => {
    const { page } = bob;
    await goTo(bob, 'Contacts', 'contacts');
    const contact = page.locator('li.contact', { hasText: 'Alice Liddell' });
    await contact.getByRole('button', { name: 'Stop following Alice Liddell…' }).click();
    const stop = page.getByRole('group', { name: 'Stop following Alice Liddell?' });
    await stop.getByText('Their card, your note and your labels go.').waitFor();
    await bob.screens('sharing-contacts-stop-following-confirm');
    await stop.getByRole('button', { name: 'Keep', exact: true }).click();
    await stop.waitFor({ state: 'detached' });
    await contact.waitFor();

    await goTo(alice, 'People', 'people');
    const subscriber = alice.page.locator('li[data-subscriber]', { hasText: 'Bob Builder' });
    await subscriber.getByRole('button', { name: 'Revoke Bob Builder…' }).click();
    const revoke = alice.page.getByRole('group', { name: 'Stop sharing with Bob Builder?' });
    await revoke.getByText('They lose your card at once. They are not told why.').waitFor();
    await revoke.getByRole('button', { name: 'Revoke and block Bob Builder' }).waitFor();
    await alice.screens('sharing-people-revoke-confirm');
    await revoke.getByRole('button', { name: 'Revoke Bob Builder', exact: true }).click();
    await alice.page.getByText('Bob Builder no longer sees your card.').waitFor();
    await subscriber.waitFor({ state: 'detached' });
  });
});
