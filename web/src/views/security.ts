// Passkeys, authenticator apps (TOTP, QR code of the otpauth URI) and the recovery key.
import QRCode from 'qrcode';
import type { Schemas } from '../../../client/src/api.js';
import { announce, client, explain, type View } from '../app.js';
import { button, field, h, message, section, when } from '../dom.js';
import { createCredential, isCancel, stepUp } from '../webauthn.js';
import { recentActivity } from './security-activity.js';

type Passkey = Schemas['Passkey'];
type Totp = Schemas['TotpAuthenticator'];

const problemText = (error: unknown) => (isCancel(error) ? 'Cancelled.' : explain(error));

export default async function security(): Promise<View> {
  const passkeys = h('ul', { class: 'items', id: 'passkeys' });
  const totps = h('ul', { class: 'items', id: 'totps' });
  const passkeyMsg = message('error');
  const totpMsg = message('error');
  const recoveryMsg = message('error');
  const enrol = h('div', { id: 'totp-enrol' });
  const activity = recentActivity();

  const drawPasskeys = async () => {
    const page = await client.request('GET', '/auth/methods', { query: { limit: 200 } });
    passkeys.replaceChildren(...page.data.map(passkeyItem));
  };
  const drawTotps = async () => {
    const page = await client.request('GET', '/auth/totp', {});
    totps.replaceChildren(...(page.data.length ? page.data.map(totpItem) : [h('li', {}, 'No authenticator app yet.')]));
  };

  function passkeyItem(p: Passkey): HTMLLIElement {
    return h('li', { 'data-passkey': p.id },
      h('div', { class: 'item-main' }, h('strong', {}, p.name),
        h('div', { class: 'item-meta' }, `Added ${when(p.created_at)} · last used ${when(p.last_used_at)}${p.backed_up ? ' · synced' : ''}`)),
      button('Remove', async () => {
        passkeyMsg.textContent = '';
        try {
          await client.request('DELETE', '/auth/methods/{id}', { params: { id: p.id }, stepUp });
          announce('Passkey removed.');
          await drawPasskeys();
        } catch (error) {
          passkeyMsg.textContent = problemText(error);
        }
      }, { class: 'danger', 'aria-label': `Remove passkey ${p.name}` }));
  }

  function totpItem(t: Totp): HTMLLIElement {
    return h('li', { 'data-totp': t.id },
      h('div', { class: 'item-main' }, h('strong', {}, t.name),
        h('div', { class: 'item-meta' }, t.active ? `Active since ${when(t.confirmed_at)}` : 'Not confirmed yet')),
      button('Remove', async () => {
        totpMsg.textContent = '';
        try {
          await client.request('DELETE', '/auth/totp/{id}', { params: { id: t.id }, stepUp });
          announce('Authenticator app removed.');
          await drawTotps();
        } catch (error) {
          totpMsg.textContent = problemText(error);
        }
      }, { class: 'danger', 'aria-label': `Remove authenticator ${t.name}` }));
  }

  const addPasskey = async () => {
    passkeyMsg.textContent = '';
    try {
      const begin = await client.request('POST', '/auth/methods/passkeys/begin', { stepUp });
      const credential = await createCredential(begin.options);
      await client.request('POST', '/auth/methods/passkeys/finish', { body: { ceremony_id: begin.ceremony_id, credential: credential as never } });
      announce('Passkey added.');
      await drawPasskeys();
    } catch (error) {
      passkeyMsg.textContent = problemText(error);
    }
  };

  const totpName = h('input', { name: 'totp_name', value: 'Authenticator app', maxlength: 64, required: true });
  const startTotp = async (e: Event) => {
    e.preventDefault();
    totpMsg.textContent = '';
    try {
      const enrolment = await client.request('POST', '/auth/totp', { body: { name: totpName.value.trim() }, stepUp });
      const qr = h('div', { class: 'qr', role: 'img', 'aria-label': 'QR code for your authenticator app' });
      // An SVG string from the qrcode library (no script, no inline style): CSP-safe.
      qr.innerHTML = await QRCode.toString(enrolment.otpauth_uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
      const code = h('input', { name: 'totp_code', inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9]{6}', maxlength: 6, required: true });
      const confirmMsg = message('error');
      enrol.replaceChildren(
        h('p', {}, 'Scan this with your authenticator app, or type the secret. It is shown only now.'), qr,
        h('p', {}, 'Secret: ', h('span', { class: 'secret', id: 'totp-secret' }, enrolment.secret)),
        h('form', {
          onsubmit: (async (ev: Event) => {
            ev.preventDefault();
            try {
              await client.request('POST', '/auth/totp/{id}/confirm', { params: { id: enrolment.id }, body: { code: code.value.trim() } });
              enrol.replaceChildren();
              announce('Authenticator app confirmed.');
              await drawTotps();
            } catch (error) {
              confirmMsg.textContent = explain(error);
            }
          }) as EventListener,
        }, field('First code the app shows', code), h('button', { type: 'submit', class: 'primary' }, 'Confirm'), confirmMsg),
      );
      await drawTotps();
      code.focus();
    } catch (error) {
      totpMsg.textContent = problemText(error);
    }
  };

  const downloadKey = async () => {
    recoveryMsg.textContent = '';
    try {
      const text = await client.request('GET', '/auth/recovery-key', { stepUp });
      const url = URL.createObjectURL(new Blob([String(text)], { type: 'text/plain' }));
      const a = h('a', { href: url, download: 'vid-recovery-key.txt' });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      announce('Recovery key downloaded. Keep it offline.');
      await activity.draw(); // the download is logged, and no signal says so
    } catch (error) {
      recoveryMsg.textContent = problemText(error);
    }
  };

  return {
    title: 'Security',
    async render(main) {
      main.append(
        h('h1', {}, 'Security'),
        section('Passkeys', h('p', { class: 'hint' }, 'Keep more than one: another phone, a security key, a computer.'), passkeys, button('Add a passkey', addPasskey, { id: 'add-passkey' }), passkeyMsg),
        section('Authenticator apps', totps,
          h('form', { onsubmit: startTotp as EventListener }, field('Name', totpName), h('button', { type: 'submit' }, 'Add an authenticator app')), enrol, totpMsg),
        section('Recovery key', h('p', {}, 'The only way back in if every device is lost. Download it and keep it offline.'), button('Download recovery key', downloadKey, { id: 'download-recovery' }), recoveryMsg),
        activity.element,
      );
      await Promise.all([drawPasskeys(), drawTotps(), activity.draw()]);
    },
    async onSignal(signal) {
      // Entries come with one of these signals (other devices' sign-ins, recoveries and
      // revocations included); a failed recovery attempt shows on the next visit.
      if (signal.kind === 'methods.changed') await Promise.all([drawPasskeys(), drawTotps(), activity.draw()]);
      else if (signal.kind === 'sessions.changed' || signal.kind === 'account.changed') await activity.draw();
    },
  };
}
