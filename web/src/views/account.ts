// The signed-in home: who you are, the display name, sign-out.
import type { Me } from '../../../client/src/index.js';
import { announce, client, explain, navigate, type View } from '../app.js';
import { button, field, h, message, redrawKeepingDrafts, section, when } from '../dom.js';

export default async function account(): Promise<View> {
  let root: HTMLElement;
  const draw = async () => {
    const [me, session] = await Promise.all([client.me.get(), client.session()]);
    root.replaceChildren(
      h('h1', {}, `Hello, ${me.display_name ?? me.username}`),
      ...(session && !session.trusted
        ? [h('p', { class: 'notice', role: 'note' }, 'This device is not kept: this session ends within 12 hours, and security settings need a kept device.')]
        : []),
      section('Your account',
        h('dl', {}, h('dt', {}, 'Username'), h('dd', { 'data-testid': 'username' }, me.username), h('dt', {}, 'Member since'), h('dd', {}, when(me.created_at))),
        nameForm(me),
      ),
      button('Sign out', async () => {
        await client.logout().catch(() => undefined);
        await navigate('/', 'Signed out.');
      }, { class: 'secondary', id: 'logout' }),
    );
  };
  return {
    title: 'Account',
    async render(main) {
      root = main;
      await draw();
    },
    // A change from another device shows at once, but never takes away a name being typed here.
    async onSignal(signal) {
      if (signal.kind === 'me.changed' || signal.kind === 'account.changed') await redrawKeepingDrafts(root, draw);
    },
  };
}

function nameForm(me: Me): HTMLFormElement {
  const input = h('input', { name: 'display_name', autocomplete: 'name', value: me.display_name ?? '', maxlength: 100 });
  const msg = message('error');
  return h('form', {
    onsubmit: (async (e: Event) => {
      e.preventDefault();
      msg.textContent = '';
      try {
        await client.me.patch({ display_name: input.value.trim() || null }, { ifMatch: me.version });
        announce('Display name saved.');
      } catch (error) {
        msg.textContent = explain(error);
      }
    }) as EventListener,
  }, field('Display name', input), h('button', { type: 'submit' }, 'Save name'), msg);
}
