// "Your data" in Chromium (PRODUCT §8): the export downloaded after a step-up, the account
// deleted after a confirmation, the one screen a deleted account has (also after signing in
// again, and in another tab that finds out by itself), and everything back after restoring; a
// follower's browser, its cache kept, shows the card again after the restore.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Page, Response } from 'playwright-core';
import { startE2e } from '../helpers/browser.js';
import type { Device, E2e } from '../helpers/browser.js';

describe('web app: your data, delete and restore (Chromium)', { timeout: 120_000 }, () => {
  let e2e: E2e;
  let phone: Device;
  let follower: Device;
  const cardAnswers: Array<{ status: number; cacheControl: string | undefined }> = [];
  const username = `lin${Date.now().toString(36)}`;
  /** 403 answers while the account is deleted: the app must not call what it may not. */
  const refused: string[] = [];
  const onResponse = (response: Response) => {
    if (response.status() === 403) refused.push(`${response.request().method()} ${new URL(response.url()).pathname}`);
  };

  before(async () => {
    // Not the defaults (30 days, a year): the screens must say what this server does.
    e2e = await startE2e({ ACCOUNT_GRACE_DAYS: '14', USERNAME_HOLD_DAYS: '730' });
    phone = await e2e.device('phone', { width: 390, height: 844 });
  });
  after(async () => {
    await e2e?.close();
  });

  /** A place in the navigation: the bar on a phone, or the "More" list. */
  const nav = async (page: Page, name: string) => {
    const link = page.locator('#nav').getByRole('link', { name, exact: true });
    if (!(await link.isVisible())) await page.locator('#nav').getByRole('button', { name: 'More' }).click();
    return link;
  };
  const shot = (name: string) => phone.shot(name);

  it('signs up, adds a field and a profile that shows it', async () => {
    const { page } = phone;
    await phone.signUp(username);
    await (await nav(page, 'Fields')).click();
    await phone.view('fields');
    await page.getByRole('button', { name: 'Add a detail' }).click();
    await page.getByRole('button', { name: 'Nickname' }).click();
    await page.locator('#field-editor').getByLabel('Nickname', { exact: true }).fill('Lin the Brave');
    await page.locator('#field-editor').getByRole('button', { name: 'Add nickname' }).click();
    await page.locator('#fields li[data-type="nickname"]', { hasText: 'Lin the Brave' }).waitFor();
    await (await nav(page, 'Profiles')).click();
    await phone.view('profiles');
    await page.getByLabel('New profile').fill('Friends');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#profiles [data-profile][aria-pressed="true"]', { hasText: 'Friends' }).waitFor();
    await page.getByRole('button', { name: /^Show Nickname in Friends/ }).click();
    await page.locator('.profile-preview .vcard li[data-type="nickname"]').waitFor();
  });

  it('a follower takes Lin\'s card through a share link that approves at once', async () => {
    const { page } = phone;
    await (await nav(page, 'Share')).click();
    await phone.view('share');
    await page.getByLabel(/^Approve automatically/).check();
    await page.getByRole('button', { name: 'Create link' }).click();
    const url = (await page.locator('#share-url').textContent()) ?? '';
    follower = await e2e.device('follower', { width: 390, height: 844 });
    // Every card answer the follower's browser receives, to hold its Cache-Control below.
    follower.page.on('response', (response) => {
      if (/\/api\/v1\/contacts\/[^/]+\/card$/.test(new URL(response.url()).pathname)) cardAnswers.push({ status: response.status(), cacheControl: response.headers()['cache-control'] });
    });
    await follower.signUp(`fol${Date.now().toString(36)}`);
    await follower.page.goto(url);
    await follower.view('share-link');
    await follower.page.getByRole('button', { name: 'Follow', exact: true }).click();
    await follower.view('contacts');
    await follower.page.locator('li.contact .vcard li[data-type="nickname"]', { hasText: 'Lin the Brave' }).waitFor();
  });

  it('downloads the export after a passkey prompt and says what it leaves out', async () => {
    const { page } = phone;
    await (await nav(page, 'Your data')).click();
    await phone.view('data');
    assert.equal(await page.locator('#nav a[href="/data"]').getAttribute('aria-current'), 'page');
    await page.getByText('It holds no secrets').waitFor();
    await shot('40-data-390');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download my data' }).click()]);
    assert.match(download.suggestedFilename(), new RegExp(`^vid-export-${username}-\\d{4}-\\d{2}-\\d{2}\\.json$`));
    const doc = JSON.parse(readFileSync((await download.path())!, 'utf8'));
    assert.equal(doc.account.username, username);
    assert.deepEqual(doc.fields.map((f: { type: string; value: unknown }) => [f.type, f.value]), [['nickname', 'Lin the Brave']]);
    assert.deepEqual(doc.profiles.map((p: { name: string }) => p.name), ['Friends']);
    assert.ok(Array.isArray(doc.left_out) && doc.left_out.length > 0);
    assert.ok(doc.left_out.some((l: { table: string }) => l.table === 'recovery_keys'));
    assert.doesNotMatch(JSON.stringify({ ...doc, left_out: undefined }), /secret_sealed|token_hash|token_sealed|access_hash|public_key/);
    // The file's own list of what it leaves out, in plain words.
    const keptOut = page.locator('#kept-out');
    await keptOut.getByText(/^What it leaves out, and why/).click();
    await keptOut.getByText('Your recovery key').waitFor();
    await page.getByText(`Saved ${download.suggestedFilename()}`).waitFor();
    await shot('41-data-downloaded-390');

    await page.setViewportSize({ width: 1280, height: 900 });
    await shot('42-data-desktop');
    await page.setViewportSize({ width: 390, height: 844 });
  });

  it('deletes the account after a confirmation that says what happens and until when', async () => {
    const { page } = phone;
    // Another tab of the same device, open on Fields: it must find out by itself.
    const other = await phone.context.newPage();
    await other.goto(`${e2e.origin}/fields`);
    await other.locator('main[data-view="fields"]').waitFor();
    await other.locator('body[data-stream="streaming"]').waitFor({ state: 'attached' });
    await page.goto(`${e2e.origin}/data`);
    await phone.view('data');

    await page.getByText('You can change your mind for 14 days').waitFor();
    await page.getByRole('button', { name: 'Delete my account…' }).click();
    const confirm = page.locator('#delete-account-confirm');
    await confirm.getByRole('heading', { name: 'Delete your account?' }).waitFor();
    // In the page's own locale, 14 days out (this server's grace).
    const purgeDay = await page.evaluate(() => new Date(Date.now() + 14 * 86_400_000).toLocaleDateString(undefined, { day: 'numeric', month: 'long', year: 'numeric' }));
    const text = (await confirm.textContent()) ?? '';
    assert.match(text, /other devices are signed out/);
    assert.match(text, /public card and your share links stop working/);
    assert.match(text, /see you as unavailable/);
    assert.ok(text.includes(purgeDay), `the purge date (${purgeDay}) in ${JSON.stringify(text)}`);
    assert.match(text, /username stays reserved for 2 years/);
    assert.match(text, /restore it/);
    // The focus moves once the question has drawn (an effect after the paint): waited for, not read at once.
    await page.waitForFunction(() => document.activeElement?.id === 'confirm-delete-account');
    await shot('43-delete-confirm-390');

    // "Keep my account" takes the question back.
    await page.getByRole('button', { name: 'Keep my account' }).click();
    assert.equal(await confirm.count(), 0);
    await page.getByRole('button', { name: 'Delete my account…' }).click();

    page.on('response', onResponse);
    await confirm.getByRole('button', { name: 'Delete my account', exact: true }).click();
    await phone.view('deleted');
    await page.getByRole('heading', { name: 'Your account is deleted' }).waitFor();
    assert.ok((await page.getByTestId('purge-at').textContent())?.includes(purgeDay));
    await page.getByText('After that date your username stays reserved for 2 years').waitFor();
    assert.equal(await page.locator('#nav a').count(), 0, 'no links to screens a deleted account cannot open');
    await page.getByText('Your account is deleted.').waitFor();
    await shot('44-deleted-390');

    // The other tab's event stream is closed and refused (403 account_deleted): it switches too.
    await other.locator('main[data-view="deleted"]').waitFor();
    // The follower's open Contacts screen says so by itself.
    await follower.page.getByText('deleted their account').waitFor();
    await other.close();
  });

  it('shows only that screen, whatever the route, and still downloads the export', async () => {
    const { page } = phone;
    await page.goto(`${e2e.origin}/profiles`);
    await phone.view('deleted');
    assert.equal(new URL(page.url()).pathname, '/profiles');
    await page.goto(`${e2e.origin}/contacts`);
    await phone.view('deleted');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download my data' }).click()]);
    const doc = JSON.parse(readFileSync((await download.path())!, 'utf8'));
    assert.equal(doc.account.status, 'deleted');
    assert.equal(doc.fields.length, 1);
    await page.locator('#kept-out').waitFor();
    await shot('45-deleted-downloaded-390');
    assert.equal(await page.evaluate(() => document.body.dataset.stream ?? 'off'), 'off', 'no event stream while deleted');
  });

  it('signs out, signs in again with the passkey during the grace, and sees the same screen', async () => {
    const { page } = phone;
    // Sign in with the button, not autofill: no conditional request left pending to race the click.
    await phone.context.addInitScript('PublicKeyCredential.isConditionalMediationAvailable = async () => false;');
    await page.reload();
    await phone.view('deleted');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await phone.view('welcome');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await phone.view('deleted');
    assert.equal(await page.evaluate(() => document.body.dataset.login), 'button');
    await page.getByRole('heading', { name: 'Your account is deleted' }).waitFor();
    await shot('46-deleted-signed-in-390');
    page.off('response', onResponse);
    assert.deepEqual(refused, [], 'nothing answered 403 in this tab while deleted');
  });

  it('restores the account: fields and profiles are back and the screens load again', async () => {
    const { page } = phone;
    await page.getByRole('button', { name: 'Restore my account' }).click();
    // Signed in again at the home, the cards one follows: that is where the restore lands.
    await phone.view('contacts');
    await page.getByText('Welcome back: your account is restored.').waitFor();
    await (await nav(page, 'Account')).click();
    await phone.view('account');
    await page.getByTestId('username').waitFor();
    await page.locator('body[data-stream="streaming"]').waitFor({ state: 'attached' });
    await (await nav(page, 'Fields')).click();
    await phone.view('fields');
    await page.locator('#fields li[data-type="nickname"]', { hasText: 'Lin the Brave' }).waitFor();
    await (await nav(page, 'Profiles')).click();
    await phone.view('profiles');
    await page.locator('#profiles [data-profile]', { hasText: 'Friends' }).first().waitFor();
    await page.locator('.profile-preview .vcard li[data-type="nickname"]', { hasText: 'Lin the Brave' }).waitFor();
    await shot('47-restored-profiles-390');
  });

  it('the follower\'s browser, cache kept, shows Lin\'s card again after the restore', async () => {
    // The follower's open Contacts screen heard of the deletion and the restore; a reload, with
    // the browser's cache as it is, must not bring back an answer from while Lin was deleted.
    await follower.page.reload();
    await follower.view('contacts');
    await follower.page.locator('li.contact .vcard li[data-type="nickname"]', { hasText: 'Lin the Brave' }).waitFor();
    assert.ok(cardAnswers.some((answer) => answer.status === 410), `the open screen asked for the card while Lin was deleted (${JSON.stringify(cardAnswers)})`);
    for (const answer of cardAnswers) {
      assert.match(answer.cacheControl ?? '', answer.status >= 400 ? /no-store/ : /no-store|no-cache/, `a ${answer.status} card answer a browser could reuse: ${answer.cacheControl}`);
    }
  });
});
