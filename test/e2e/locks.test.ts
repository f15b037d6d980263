// An operator's lock seen in Chromium (decision 090): the signed-in app finds out on its next
// request (its event stream ends at once), forgets the dead session and says why and what to do; signing in again says the same.
import { after, before, describe, it } from 'node:test';
import { startE2e } from '../helpers/browser.js';
import type { Device, E2e } from '../helpers/browser.js';

describe('web app: a locked account (Chromium)', { timeout: 90_000 }, () => {
  let e2e: E2e;
  let phone: Device;
  const username = `lok${Date.now().toString(36)}`;
  const LOCKED = 'This account is locked by the people who run this service';

  before(async () => {
    e2e = await startE2e();
    phone = await e2e.device('phone', { width: 390, height: 844 });
  });
  after(async () => {
    await e2e?.close();
  });

  it('signs up, is locked by the operator, and is told so on the next screen', async () => {
    const { page } = phone;
    await phone.context.addInitScript('PublicKeyCredential.isConditionalMediationAvailable = async () => false;');
    await phone.signUp(username);
    await page.locator('body[data-stream="streaming"]').waitFor({ state: 'attached' });

    // No click needed: the lock ends the event stream, and the app finds out by itself.
    await e2e.services.locks.lock(username, 'end-to-end test');
    await phone.view('welcome');
    await page.getByText(LOCKED).first().waitFor();
    await phone.screens('50-locked');
  });

  it('signing in with the passkey is refused with the same words', async () => {
    const { page } = phone;
    await page.reload();
    await phone.view('welcome');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByText(LOCKED).first().waitFor();
    await phone.screens('51-locked-sign-in');
  });

  it('after the operator unlocks it, the passkey signs in again', async () => {
    const { page } = phone;
    await e2e.services.locks.unlock(username);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    // Coming back, the home is the cards one follows.
    await phone.view('contacts');
  });
});
