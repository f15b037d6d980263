// Profiles: who sees what. Create and rename profiles, pick the fields each one shows and their
// order, and watch the card its audience gets change beside the editor. One profile can be the
// public card at /@username. Changes from other devices arrive as signals and redraw in place.
import type { Exposure, Profile, Schemas } from '../../../client/src/index.js';
import { announce, client, explain, type View } from '../app.js';
import { cardElement, fieldTypeLabels } from '../card.js';
import { button, field, h, message, redrawKeepingDrafts, section } from '../dom.js';
import { display } from '../field-display.js';

type Field = Schemas['Field'];

export default async function profiles(): Promise<View> {
  let root: HTMLElement;
  let selectedId = new URLSearchParams(location.search).get('p') ?? undefined;
  let me = await client.me.get();
  const error = message('error');

  async function load() {
    const all: Profile[] = [];
    for await (const p of client.profiles.list()) all.push(p);
    const fields: Field[] = [];
    for await (const f of client.list('/me/fields', { query: { limit: 200 } })) fields.push(f as Field);
    return { all, fields };
  }

  function select(id: string | undefined): void {
    selectedId = id;
    history.replaceState(null, '', id ? `/profiles?p=${encodeURIComponent(id)}` : '/profiles');
  }

  async function draw(): Promise<void> {
    const { all, fields } = await load();
    if (!all.some((p) => p.id === selectedId)) select(all[0]?.id);
    const selected = all.find((p) => p.id === selectedId);
    const focused = document.activeElement?.id;
    root.replaceChildren(
      h('h1', {}, 'Profiles'),
      h('p', { class: 'lead' }, 'A profile is what one audience sees: pick the fields for “Work”, “Family” or your public card. People only ever see the card of the profile you give them.'),
      error,
      picker(all),
      selected ? await editor(selected, fields, all) : emptyState(),
    );
    if (focused) document.getElementById(focused)?.focus();
  }

  function picker(all: Profile[]): HTMLElement {
    const name = h('input', { id: 'new-profile-name', name: 'profile_name', maxlength: 64, placeholder: all.length ? 'Family' : 'Work', required: true, autocomplete: 'off' });
    const msg = message('error');
    const form = h('form', {
      class: 'inline-form',
      onsubmit: (async (e: Event) => {
        e.preventDefault();
        msg.textContent = '';
        try {
          const created = await client.profiles.create({ name: name.value.trim() });
          select(created.id);
          announce(`Profile “${created.name}” created.`);
          await draw();
          document.getElementById('field-picker')?.scrollIntoView({ block: 'nearest' });
        } catch (failure) {
          msg.textContent = explain(failure);
        }
      }) as EventListener,
    }, field('New profile', name), h('button', { type: 'submit', class: 'primary' }, 'Create'), msg);
    const tabs = all.map((p) =>
      h('li', {},
        h('button', {
          type: 'button',
          class: `chip${p.id === selectedId ? ' selected' : ''}`,
          'aria-pressed': p.id === selectedId ? 'true' : 'false',
          'data-profile': p.id,
          onclick: (() => {
            select(p.id);
            void draw();
          }) as EventListener,
        }, p.name, p.public ? h('span', { class: 'badge' }, 'Public') : null, h('span', { class: 'chip-count' }, `${p.field_count}`))));
    return section('Your profiles', all.length ? h('ul', { class: 'chips', id: 'profiles' }, ...tabs) : null, form);
  }

  function emptyState(): HTMLElement {
    return h('section', { class: 'card empty-state' },
      h('h2', {}, 'No profiles yet'),
      h('p', {}, 'Create your first profile above, for example “Work”. Then choose which of your fields it shows; you see the card people will get as you go.'));
  }

  async function editor(profile: Profile, fields: Field[], all: Profile[]): Promise<HTMLElement> {
    const exposures = await client.profiles.exposures(profile.id);
    const byId = new Map(fields.map((f) => [f.id, f]));
    const labels = await fieldTypeLabels();
    const shown = new Set(exposures.map((e) => e.field_id));
    const preview = await client.cards.get(`/profiles/${profile.id}/preview`);
    const otherPublic = all.find((p) => p.public && p.id !== profile.id);

    const settings = settingsForm(profile, otherPublic);
    const order = h('ol', { class: 'exposures', id: 'exposures' }, ...exposures.map((e, i) => exposureItem(profile, e, i, exposures.length, byId.get(e.field_id), labels)));
    const hidden = fields.filter((f) => !shown.has(f.id));
    const available = hidden.length
      ? h('ul', { class: 'items', id: 'field-picker' }, ...hidden.map((f) =>
          h('li', { 'data-available': f.id },
            h('div', { class: 'item-main' }, h('strong', {}, labels.get(f.type) ?? f.type, f.label ? ` · ${f.label}` : ''), h('div', { class: 'field-value' }, display(f))),
            button('Show', () => act(() => client.profiles.expose(profile.id, f.id), `Now showing ${labels.get(f.type) ?? f.type}.`), { 'aria-label': `Show ${labels.get(f.type) ?? f.type}${f.label ? ` ${f.label}` : ''} in ${profile.name}` }))))
      : h('p', { class: 'hint', id: 'field-picker' }, fields.length ? 'Every one of your fields is in this profile.' : h('span', {}, 'You have no fields yet. ', h('a', { href: '/fields', 'data-link': '' }, 'Add your phone, email or address'), ' first.'));

    return h('div', { class: 'profile-workspace' },
      h('div', { class: 'profile-editor' },
        section(`“${profile.name}”`, settings),
        section('Shown in this profile',
          exposures.length ? order : h('p', { class: 'hint' }, 'Nothing yet: pick fields below. The card shows them in this order.'),
        ),
        section('Your other fields', available)),
      h('aside', { class: 'profile-preview', 'aria-label': 'Preview' },
        h('h2', {}, profile.public ? 'Your public card' : `What “${profile.name}” sees`),
        await cardElement(preview.card, { empty: 'This card shows only your name until you add fields.' }),
        profile.public
          ? h('p', { class: 'hint' }, 'Anyone can open it: ', h('a', { href: `/@${encodeURIComponent(me.username)}`, id: 'open-public', 'data-link': '' }, `/@${me.username}`))
          : h('p', { class: 'hint' }, 'Exactly this, and nothing else, reaches the people you give this profile.')),
    );
  }

  function settingsForm(profile: Profile, otherPublic: Profile | undefined): HTMLElement {
    const name = h('input', { id: 'profile-name', name: 'name', maxlength: 64, value: profile.name, required: true, autocomplete: 'off' });
    const description = h('input', { id: 'profile-description', name: 'description', maxlength: 280, value: profile.description ?? '', autocomplete: 'off' });
    const isPublic: HTMLInputElement = h('input', {
      type: 'checkbox',
      id: 'profile-public',
      name: 'public',
      ...(profile.public ? { checked: true } : {}),
      onchange: (() =>
        act(async () => {
          // One public profile at a time: the current one steps down first.
          if (isPublic.checked && otherPublic) await client.profiles.update(otherPublic.id, { public: false }, { ifMatch: otherPublic.version });
          await client.profiles.update(profile.id, { public: isPublic.checked }, { ifMatch: profile.version });
        }, isPublic.checked ? `“${profile.name}” is your public card.` : `“${profile.name}” is private again.`)) as EventListener,
    });
    const msg = message('error');
    const confirmArea = h('div', { class: 'confirm', id: 'delete-confirm' });
    const askDelete = () => {
      confirmArea.replaceChildren(
        h('p', { role: 'alert' }, `Delete “${profile.name}”? The people who see it lose its card. This cannot be undone.`),
        h('div', { class: 'actions' },
          button('Delete profile', () => act(async () => {
            await client.profiles.remove(profile.id, { ifMatch: profile.version });
            select(undefined);
          }, `Profile “${profile.name}” deleted.`), { class: 'danger', id: 'confirm-delete' }),
          button('Keep it', () => confirmArea.replaceChildren())));
      document.getElementById('confirm-delete')?.focus();
    };
    return h('div', {},
      h('form', {
        onsubmit: (async (e: Event) => {
          e.preventDefault();
          msg.textContent = '';
          try {
            await client.profiles.update(profile.id, { name: name.value.trim(), description: description.value.trim() || null }, { ifMatch: profile.version });
            announce('Profile saved.');
            await draw();
          } catch (failure) {
            msg.textContent = explain(failure);
          }
        }) as EventListener,
      },
        field('Name', name),
        field('Description (only you see it)', description),
        h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Save')),
        msg),
      h('div', { class: 'check' },
        isPublic,
        h('label', { for: 'profile-public' }, 'Public card: anyone with my username can see this profile',
          otherPublic ? h('span', { class: 'hint block' }, `“${otherPublic.name}” is your public card now; this replaces it.`) : null)),
      button('Delete this profile…', askDelete, { class: 'danger subtle', id: 'delete-profile' }),
      confirmArea,
    );
  }

  function exposureItem(profile: Profile, exposure: Exposure, index: number, count: number, f: Field | undefined, labels: Map<string, string>): HTMLLIElement {
    const type = f ? labels.get(f.type) ?? f.type : 'Field';
    const label = h('input', { id: `label-${exposure.field_id}`, name: 'label', maxlength: 64, value: exposure.label ?? '', placeholder: f?.label ?? type, autocomplete: 'off' });
    const saveLabel = () => act(() => client.profiles.expose(profile.id, exposure.field_id, { label: label.value.trim() || null }), 'Label saved.');
    label.addEventListener('change', () => void saveLabel());
    return h('li', { 'data-exposure': exposure.field_id },
      h('div', { class: 'item-main' },
        h('strong', {}, type), h('div', { class: 'field-value' }, f ? display(f) : ''),
        field('Shown as', label)),
      h('div', { class: 'actions' },
        button('↑', () => act(() => client.profiles.expose(profile.id, exposure.field_id, { position: index - 1 }), `${type} moved up.`), { 'aria-label': `Move ${type} up`, disabled: index === 0 }),
        button('↓', () => act(() => client.profiles.expose(profile.id, exposure.field_id, { position: index + 1 }), `${type} moved down.`), { 'aria-label': `Move ${type} down`, disabled: index === count - 1 }),
        button('Hide', () => act(() => client.profiles.hide(profile.id, exposure.field_id), `${type} hidden from ${profile.name}.`), { 'aria-label': `Hide ${type} from ${profile.name}` })));
  }

  /** Runs a change, says so, and redraws; a refusal says how to fix it. */
  async function act(change: () => Promise<unknown>, done: string): Promise<void> {
    error.textContent = '';
    try {
      await change();
      announce(done);
      await draw();
    } catch (failure) {
      error.textContent = explain(failure);
      await draw();
    }
  }

  return {
    title: 'Profiles',
    async render(main) {
      root = main;
      await draw();
    },
    async onSignal(signal) {
      if (signal.kind === 'me.changed') me = await client.me.get();
      if (['profiles.changed', 'fields.changed', 'me.changed'].includes(signal.kind)) await redrawKeepingDrafts(root, draw);
    },
  };
}
