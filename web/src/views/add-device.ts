// The trusted device: show a join code, and approve or deny the requests it brings.
import type { Schemas } from '../../../client/src/api.js';
import { announce, client, explain, type View } from '../app.js';
import { button, h, message, section, when } from '../dom.js';
import { isCancel, stepUp } from '../webauthn.js';

type Pending = Schemas['PendingJoin'];

export default async function addDevice(): Promise<View> {
  let list: HTMLUListElement;
  let countdown: ReturnType<typeof setInterval> | undefined;
  const codeBox = h('div', { class: 'code-box' });
  const error = message('error');

  const showCode = async () => {
    error.textContent = '';
    try {
      const { code, expires_at } = await client.request('POST', '/auth/join/issue', {});
      const left = h('p', { class: 'hint', 'aria-live': 'off' });
      const tick = () => {
        const s = Math.max(0, Math.round((Date.parse(expires_at) - Date.now()) / 1000));
        left.textContent = s > 0 ? `Expires in ${s} s` : 'Expired: show a new code.';
      };
      clearInterval(countdown);
      tick();
      countdown = setInterval(tick, 1000);
      codeBox.replaceChildren(h('p', {}, 'On the new device, choose “Join with a code” and enter your username and:'), h('p', { class: 'code', id: 'join-code', 'aria-label': `Code ${code.split('').join(' ')}` }, code), left);
    } catch (failure) {
      error.textContent = explain(failure);
    }
  };

  const drawPending = async () => {
    const page = await client.request('GET', '/auth/join/pending', {});
    list.replaceChildren(...(page.data.length ? page.data.map(item) : [h('li', {}, 'No device is waiting.')]));
  };

  function item(p: Pending): HTMLLIElement {
    const msg = message('error');
    return h('li', { 'data-attempt': p.attempt_id },
      h('div', { class: 'item-main' },
        h('strong', {}, p.device_label),
        h('div', { class: 'item-meta', 'data-testid': 'join-location' }, `Where: ${p.location ?? 'unknown location'} (${p.ip})`),
        h('div', { class: 'item-meta', 'data-testid': 'join-user-agent' }, p.user_agent),
        h('div', { class: 'item-meta' }, `Asked at ${when(p.created_at)}`),
        h('p', {}, 'Is this you, signing in on this device?'), msg),
      h('div', { class: 'actions' },
        button('Approve', async () => {
          try {
            await client.request('POST', '/auth/join/approve', { body: { attempt_id: p.attempt_id }, stepUp });
            announce('Approved: the new device can finish signing in.');
            await drawPending();
          } catch (failure) {
            msg.textContent = isCancel(failure) ? 'Cancelled.' : explain(failure);
          }
        }, { class: 'primary', 'aria-label': `Approve ${p.device_label}` }),
        button('Deny', async () => {
          try {
            await client.request('POST', '/auth/join/deny', { body: { attempt_id: p.attempt_id } });
            announce('Denied.');
            await drawPending();
          } catch (failure) {
            msg.textContent = explain(failure);
          }
        }, { class: 'danger', 'aria-label': `Deny ${p.device_label}` }),
      ),
    );
  }

  return {
    title: 'Add a device',
    async render(main) {
      list = h('ul', { class: 'items', id: 'pending' });
      main.append(
        h('h1', {}, 'Add a device'),
        section('Show a code', button('Show a code', showCode, { class: 'primary', id: 'issue-code' }), codeBox, error),
        section('Devices asking to join', list),
      );
      await drawPending();
    },
    async onSignal(signal) {
      if (signal.kind === 'join.requested' || signal.kind === 'join.changed') await drawPending();
    },
    leave() {
      clearInterval(countdown);
    },
  };
}
