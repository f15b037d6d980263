// /@username: a person's public card, for anyone, signed in or not, with "Add to contacts"
// (the vCard 3.0 file iPhone and Android contacts apps import).
import { client, explain, type View } from '../app.js';
import { cardElement } from '../card.js';
import { h } from '../dom.js';
import { isProblem } from '../../../client/src/index.js';

export default async function publicCard(): Promise<View> {
  const username = decodeURIComponent(location.pathname.slice(2));
  let root: HTMLElement;

  const draw = async () => {
    try {
      const card = await client.public.card(username);
      const name = card.owner.display_name || card.owner.username;
      document.title = `${name} · VID`;
      const add = h('a', {
        class: 'button primary',
        id: 'add-to-contacts',
        href: client.public.vcardUrl(username, '3.0'),
        download: `${username}.vcf`,
      }, 'Add to contacts');
      root.replaceChildren(
        h('div', { class: 'public-page' },
          await cardElement(card, { empty: `${name} shares no details publicly yet.` }),
          h('div', { class: 'public-actions' },
            add,
            h('p', { class: 'hint' }, 'Downloads a contact file your phone or computer opens in its address book.')),
          h('p', { class: 'public-footer' }, 'A card shared with VID. ', h('a', { href: '/', 'data-link': '' }, 'Make your own'))),
      );
    } catch (error) {
      const missing = isProblem(error) && error.status === 404;
      root.replaceChildren(
        h('div', { class: 'public-page' },
          h('section', { class: 'card empty-state' },
            h('h1', {}, missing ? 'No public card here' : 'This card could not be loaded'),
            h('p', {}, missing
              ? `Nobody called @${username} shares a public card. Check the name, or ask them for a share link.`
              : `${explain(error)} Try again in a moment.`),
            h('p', {}, h('a', { href: '/', 'data-link': '' }, 'Go to VID')))),
      );
    }
  };

  return {
    title: `@${username}`,
    async render(main) {
      root = main;
      await draw();
    },
  };
}
