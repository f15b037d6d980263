// Joining new devices in Chromium across browser contexts: a code shown on the trusted device,
// the request approved there (with step-up), finished on the new device without and with "keep
// this device"; signals reaching the other devices; revoking a session from the sessions page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startE2e } from '../helpers/browser.js';
import { goTo } from '../helpers/web-ui.js';
import type { Device, E2e } from '../helpers/browser.js';

describe('web app: join a new device, signals, sessions (Chromium)', { timeout: 120_000 }, () => {
  let e2e: E2e;
  let laptop: Device;
  let borrowed: Device;
  let tablet: Device;
  const username = `grace${Date.now().toString(36)}`;

  before(async () => {
    e2e = await startE2e();
    laptop = await e2e.device('laptop');
    borrowed = await e2e.device('borrowed', { width: 360, height: 740 });
    tablet = await e2e.device('tablet', { width: 768, height: 1000 });
    await laptop.page.goto(`${e2e.origin}/`);
    await laptop.page.getByLabel('Choose a username').fill(username);
    await laptop.page.getByRole('button', { name: 'Create account with a passkey' }).click();
    await laptop.view('account');
  });
  after(async () => {
    await e2e?.close();
  });

  async function issueCode(): Promise<string> {
    const { page } = laptop;
    if (!(await page.locator('main[data-view="add-device"]').count())) {
      await page.getByRole('link', { name: 'Add a device' }).click();
      await laptop.view('add-device');
    }
    await page.locator('#issue-code').click();
    await page.locator('#join-code').waitFor();
    const code = (await page.locator('#join-code').textContent())!.trim();
    assert.match(code, /^\d{6}$/);
    return code;
  }

  async function enter(device: Device, code: string, keep: boolean): Promise<void> {
    const { page } = device;
    await page.goto(`${e2e.origin}/join`);
    await device.view('join');
    const box = page.getByLabel(/^Keep this device/);
    assert.equal(await box.isChecked(), false, '"keep this device" is unchecked by default');
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Code from your other device').fill(code);
    if (keep) await box.check();
    await page.getByRole('button', { name: 'Join', exact: true }).click();
    await page.getByText('Waiting for your other device to approve…').waitFor();
  }

  async function approveOnLaptop(shot?: string): Promise<void> {
    const { page } = laptop;
    // Arrives through the join.requested signal: no reload.
    const request = page.locator('#pending li[data-attempt]');
    await request.waitFor();
    // The navigation counts it.
    await page.locator('#nav').getByRole('link', { name: 'Add a device 1 waiting' }).waitFor();
    // The device in words and its place, never the user-agent string.
    assert.match((await request.locator('strong').textContent()) ?? '', /^Chrom(e|ium)\b/);
    assert.doesNotMatch((await request.textContent()) ?? '', /Mozilla|AppleWebKit/);
    assert.match((await request.getByTestId('join-place').textContent()) ?? '', /(^Near .* · )?asked /);
    if (shot) await laptop.shot(shot);
    await request.getByRole('button', { name: /^Approve/ }).click();
    await page.locator('#pending li[data-attempt]').waitFor({ state: 'detached' });
  }

  it('joins a borrowed device without keeping it (persist_device false)', async () => {
    const code = await issueCode();
    await laptop.shot('10-join-code');
    await enter(borrowed, code, false);
    await borrowed.shot('11-join-waiting');
    await approveOnLaptop('12-join-approve');
    await borrowed.view('account');
    await borrowed.page.getByText('This device is signed in for now only').first().waitFor();
    assert.equal((await borrowed.credentials()).length, 0, 'no passkey made on a device not kept');
    assert.equal(await borrowed.page.getByRole('link', { name: 'Add a device' }).count(), 0);
    await borrowed.shot('13-join-not-kept');
  });

  it('joins a tablet and keeps it (persist_device true: a passkey there)', async () => {
    const code = await issueCode();
    await enter(tablet, code, true);
    await approveOnLaptop();
    await tablet.view('account');
    assert.equal(await tablet.page.getByText('This device is signed in for now only').count(), 0);
    assert.equal((await tablet.credentials()).filter((c) => c.isResidentCredential).length, 1);
    // The laptop's security page lists both passkeys.
    await laptop.page.getByRole('link', { name: 'Security' }).click();
    await laptop.view('security');
    await laptop.page.locator('#passkeys li').nth(1).waitFor();
  });

  it('says a malformed code and a wrong code apart, under the code box, and cancels a wait', async () => {
    const stranger = await e2e.device('stranger', { width: 390, height: 844 });
    const { page } = stranger;
    await page.goto(`${e2e.origin}/join`);
    await stranger.view('join');
    await page.getByLabel('Username').fill(username);
    const box = page.getByLabel('Code from your other device');
    await box.fill('12345');
    await page.getByRole('button', { name: 'Join', exact: true }).click();
    await page.getByText('A code is 6 digits.').waitFor();
    await box.fill('000000');
    await page.getByRole('button', { name: 'Join', exact: true }).click();
    await page.getByText('That code didn’t work: check the digits, or ask your other device for a new code.').waitFor();
    await stranger.screens('15-join-wrong-code');
    // A right code, then Cancel while waiting: the request stops here; the laptop's code is spent.
    const code = await issueCode();
    await box.fill(code);
    await page.getByRole('button', { name: 'Join', exact: true }).click();
    await page.getByText('Waiting for your other device to approve…').waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByText('Stopped waiting. Nothing was signed in.').waitFor();
    // The laptop took the used code off its screen (join.code.changed) and lists the request.
    await laptop.page.locator('#join-code').waitFor({ state: 'detached' });
    await laptop.page.locator('#code-ended', { hasText: 'The code was used.' }).waitFor();
    await laptop.screens('16-add-device-request');
    await laptop.page.locator('#pending li[data-attempt]').getByRole('button', { name: /^Deny/ }).click();
    await laptop.page.locator('#pending li[data-attempt]').waitFor({ state: 'detached' });
    await stranger.context.close();
  });

  it('shows a change made on one device on the others through signals', async () => {
    for (const device of [borrowed, tablet]) await goTo(device.page, 'Fields', 'fields');
    await borrowed.page.locator('body[data-stream="streaming"]').waitFor();
    const { page } = laptop;
    await goTo(page, 'Fields', 'fields');
    await page.getByRole('button', { name: 'Add a detail' }).click();
    await page.getByRole('button', { name: 'Nickname' }).click();
    await page.locator('#field-editor').getByLabel('Nickname', { exact: true }).fill('Amazing Grace');
    await page.locator('#field-editor').getByRole('button', { name: 'Add nickname' }).click();
    await page.locator('#fields li', { hasText: 'Amazing Grace' }).waitFor();
    // No reload on the other devices: the fields.changed signal redraws their lists.
    await borrowed.page.locator('#fields li', { hasText: 'Amazing Grace' }).waitFor();
    await tablet.page.locator('#fields li', { hasText: 'Amazing Grace' }).waitFor();
    assert.equal(await borrowed.page.evaluate('document.body.dataset.lastSignal'), 'fields.changed');
    await borrowed.shot('14-fields-after-signal');
  });

  it('a change from another device shows at once without taking away what is being typed', async () => {
    for (const device of [laptop, tablet]) await goTo(device.page, 'Account', 'account');
    await tablet.page.locator('body[data-stream="streaming"]').waitFor();
    // The tablet has a name typed but not saved when the laptop saves another.
    await tablet.page.getByLabel('Display name').fill('Grace H.');
    await laptop.page.getByLabel('Display name').fill('Grace Hopper');
    await laptop.page.getByRole('button', { name: 'Save name' }).click();
    await laptop.page.getByText('Name saved.').waitFor();
    await tablet.page.getByRole('heading', { name: 'Grace Hopper' }).waitFor();
    assert.equal(await tablet.page.getByLabel('Display name').inputValue(), 'Grace H.', 'the live update left the draft alone');
    // Saved over the newest version, the draft wins, and the laptop hears of it.
    await tablet.page.getByRole('button', { name: 'Save name' }).click();
    await tablet.page.getByText('Name saved.').waitFor();
    await laptop.page.getByRole('heading', { name: 'Grace H.' }).waitFor();
  });

  it('revokes the borrowed device from the sessions page, which signs it out', async () => {
    const { page } = laptop;
    await page.getByRole('link', { name: 'Sessions' }).click();
    await laptop.view('sessions');
    await page.locator('#sessions li').nth(2).waitFor();
    assert.equal(await page.locator('#sessions li').count(), 3);
    await laptop.shot('15-sessions');
    assert.doesNotMatch((await page.locator('#sessions').textContent()) ?? '', /Mozilla|AppleWebKit/);
    await page.locator('#sessions li', { hasText: 'Signed in for now only' }).getByRole('button', { name: /^Sign out/ }).click();
    await page.locator('#sessions li', { hasText: 'Signed in for now only' }).waitFor({ state: 'detached' });
    assert.equal(await page.locator('#sessions li').count(), 2);
    // The borrowed device learns it at once (its stream ends, renewal is refused): back to sign-in.
    await borrowed.view('welcome');
  });
});
