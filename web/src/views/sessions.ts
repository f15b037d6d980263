// Your live sessions, revoke any of them; refreshed by sessions.changed.
import type { Session } from '../../../client/src/index.js';
import { announce, client, explain, navigate, type View } from '../app.js';
import { button, h, message, when } from '../dom.js';

export default async function sessions(): Promise<View> {
  let list: HTMLUListElement;
  const error = message('error');
  const draw = async () => {
    const all: Session[] = [];
    for await (const s of client.sessions.list({ limit: 50 })) all.push(s);
    list.replaceChildren(...all.map(item));
  };
  function item(s: Session): HTMLLIElement {
    return h('li', { 'data-session': s.id },
      h('div', { class: 'item-main' },
        h('strong', {}, s.device_label, s.current ? ' (this device)' : ''),
        h('div', { class: 'item-meta' }, s.trusted ? 'Kept device' : 'Not kept (ends within 12 hours)'),
        h('div', { class: 'item-meta' }, `Signed in ${when(s.created_at)} · last seen ${when(s.last_seen_at)}`),
        h('div', { class: 'item-meta' }, s.user_agent)),
      button(s.current ? 'Sign out here' : 'Revoke', async () => {
        error.textContent = '';
        try {
          await client.sessions.revoke(s.id);
          if (s.current) return void (await navigate('/', 'Signed out.'));
          announce('Session revoked.');
          await draw();
        } catch (failure) {
          error.textContent = explain(failure);
        }
      }, { class: 'danger', 'aria-label': `${s.current ? 'Sign out' : 'Revoke'} ${s.device_label}${s.current ? ' (this device)' : ''}` }),
    );
  }
  return {
    title: 'Sessions',
    async render(main) {
      list = h('ul', { class: 'items', id: 'sessions' });
      main.append(h('h1', {}, 'Sessions'), h('p', { class: 'lead' }, 'Where you are signed in. Revoke anything you do not recognise.'), error, h('section', { class: 'card', 'aria-label': 'Sessions' }, list));
      await draw();
    },
    async onSignal(signal) {
      if (signal.kind === 'sessions.changed') await draw();
    },
  };
}
