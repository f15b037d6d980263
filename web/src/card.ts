// The card, drawn one way wherever it appears: a profile's preview, the public page, a contact.
import type { Card } from '../../client/src/index.js';
import { client } from './app.js';
import { h } from './dom.js';
import { display, hrefOf } from './field-display.js';

let typeLabels: Promise<Map<string, string>> | undefined;

/** Field type labels from the public catalog, fetched once. */
export function fieldTypeLabels(): Promise<Map<string, string>> {
  typeLabels ??= client
    .request('GET', '/field-types', { auth: 'none' })
    .then((page) => new Map(page.data.map((t) => [t.key, t.label])))
    .catch(() => new Map());
  return typeLabels;
}

export const initials = (name: string): string =>
  [...name.trim().split(/\s+/).slice(0, 2).map((w) => [...w][0] ?? '')].join('').toUpperCase() || '?';

export async function cardElement(card: Card, options: { empty?: string } = {}): Promise<HTMLElement> {
  const labels = await fieldTypeLabels();
  const name = card.owner.display_name || card.owner.username;
  const rows = card.fields.map((f) => {
    const href = hrefOf(f);
    const text = display(f);
    const value = href ? h('a', { href, rel: 'noopener noreferrer', ...(href.startsWith('http') ? { target: '_blank' } : {}) }, text) : text;
    return h('li', { 'data-card-field': f.id, 'data-type': f.type },
      h('span', { class: 'vcard-label' }, f.label ? `${f.label}` : labels.get(f.type) ?? f.type,
        f.label && labels.get(f.type) ? h('span', { class: 'vcard-type' }, ` · ${labels.get(f.type)}`) : null),
      h('span', { class: 'vcard-value' }, value));
  });
  return h('article', { class: 'vcard', 'aria-label': `Card of ${name}` },
    h('header', { class: 'vcard-head' },
      h('div', { class: 'avatar', 'aria-hidden': 'true' }, initials(name)),
      h('div', {},
        h('p', { class: 'vcard-name' }, name),
        h('p', { class: 'vcard-username' }, `@${card.owner.username}`))),
    rows.length ? h('ul', { class: 'vcard-fields' }, ...rows) : h('p', { class: 'vcard-empty' }, options.empty ?? 'Nothing to show yet.'));
}
