// People: who sees your cards. Requests wait for a decision (approve onto a profile, deny, deny
// and block); the people you share with are grouped by the profile they see, and can be moved to
// another one or lose access; blocked people can be unblocked. Live on subscriptions.changed and
// profiles.changed, so a request made a moment ago appears without a reload.
import type { Profile, Subscription } from '../../../client/src/index.js';
import { announce, client, explain, type View } from '../app.js';
import { initials } from '../card.js';
import { ago, button, field, h, message, section, serial } from '../dom.js';

interface Blocked {
  username: string;
  display_name: string | null;
  blocked_at: string;
}

const nameOf = (person: { username: string; display_name: string | null }) => person.display_name || person.username;

function person(who: { username: string; display_name: string | null }, meta: string): HTMLElement {
  const name = nameOf(who);
  return h('div', { class: 'person' },
    h('div', { class: 'avatar small', 'aria-hidden': 'true' }, initials(name)),
    h('div', { class: 'person-text' },
      h('strong', {}, name),
      h('span', { class: 'item-meta' }, `@${who.username}`, meta ? ` · ${meta}` : '')));
}

export default async function people(): Promise<View> {
  let root: HTMLElement;
  const queue = serial();
  const error = message('error');
  /** The profile picked in each row's picker, kept across redraws. */
  const picked = new Map<string, string>();

  async function load() {
    const profiles: Profile[] = [];
    for await (const p of client.profiles.list()) profiles.push(p);
    const pending: Subscription[] = [];
    for await (const s of client.subscriptions.list({ status: 'pending', limit: 200 })) pending.push(s);
    const active: Subscription[] = [];
    for await (const s of client.subscriptions.list({ status: 'active', limit: 200 })) active.push(s);
    const blocked: Blocked[] = [];
    for await (const b of client.subscriptions.blocks()) blocked.push(b as Blocked);
    return { profiles, pending, active, blocked };
  }

  const redraw = () => queue(draw);

  async function draw(): Promise<void> {
    const { profiles, pending, active, blocked } = await load();
    const focused = document.activeElement?.id;
    root.replaceChildren(
      h('h1', {}, 'People'),
      h('p', { class: 'lead' }, 'Who sees your cards. Approve requests onto a profile, move people to another profile, or stop sharing. Nobody learns which profile they get or who else sees you.'),
      error,
      requests(pending, profiles),
      subscribers(active, profiles),
      blocks(blocked),
    );
    if (focused) document.getElementById(focused)?.focus({ preventScroll: true });
  }

  /** A profile picker for one subscription; its choice survives a redraw. */
  function picker(sub: Subscription, label: string, profiles: Profile[], idPrefix: string): HTMLDivElement {
    const select = h('select', { id: `${idPrefix}-${sub.id}`, name: 'profile_id' },
      ...profiles.map((p) => h('option', { value: p.id }, p.name)));
    const keep = picked.get(sub.id);
    if (keep && profiles.some((p) => p.id === keep)) select.value = keep;
    select.addEventListener('change', () => picked.set(sub.id, select.value));
    return field(label, select);
  }

  function requests(pending: Subscription[], profiles: Profile[]): HTMLElement {
    const count = pending.length ? ` (${pending.length})` : '';
    if (!pending.length) {
      return section('Requests',
        h('p', { class: 'hint', id: 'requests' }, 'No requests waiting. When someone asks for your card (by your username, or through a share link you approve yourself), they appear here.'));
    }
    const noProfile = !profiles.length
      ? h('p', { class: 'notice', role: 'note' }, 'To approve someone, choose the profile they see: ', h('a', { href: '/profiles', 'data-link': '' }, 'create a profile'), ' first.')
      : null;
    return section(`Requests${count}`, noProfile,
      h('ul', { class: 'items people', id: 'requests' }, ...pending.map((sub) => {
        const name = nameOf(sub.subscriber);
        return h('li', { 'data-request': sub.id },
          h('div', { class: 'item-main' },
            person(sub.subscriber, `asked ${ago(sub.created_at)}`),
            sub.message ? h('blockquote', { class: 'request-message' }, sub.message) : null),
          h('div', { class: 'decide' },
            profiles.length
              ? h('div', { class: 'approve-row' },
                  picker(sub, 'Approve onto', profiles, 'approve'),
                  button('Approve', () => {
                    const select = document.getElementById(`approve-${sub.id}`) as HTMLSelectElement;
                    const profile = profiles.find((p) => p.id === select.value);
                    return act(() => client.subscriptions.approve(sub.id, select.value), `${name} now sees your “${profile?.name ?? ''}” card.`);
                  }, { class: 'primary', 'aria-label': `Approve ${name}` }))
              : null,
            h('div', { class: 'actions' },
              button('Deny', () => act(() => client.subscriptions.deny(sub.id), `Request from ${name} denied.`), { 'aria-label': `Deny ${name}` }),
              button('Deny and block', () => act(() => client.subscriptions.deny(sub.id, { block: true }), `Request denied; ${name} cannot ask again.`), { class: 'danger', 'aria-label': `Deny and block ${name}` }))));
      })));
  }

  function subscribers(active: Subscription[], profiles: Profile[]): HTMLElement {
    if (!active.length) {
      return section('Who sees your cards',
        h('p', { class: 'hint', id: 'subscribers' }, 'Nobody yet. ', h('a', { href: '/share', 'data-link': '' }, 'Create a share link'), ', show its QR code, and the people who use it appear here.'));
    }
    const groups = profiles
      .map((p) => ({ profile: p, subs: active.filter((s) => s.profile_id === p.id) }))
      .filter((g) => g.subs.length);
    return section('Who sees your cards',
      h('div', { id: 'subscribers' }, ...groups.map(({ profile, subs }) => {
        const titleId = `group-${profile.id}`;
        return h('div', { class: 'group', 'data-profile-group': profile.id, role: 'group', 'aria-labelledby': titleId },
          h('h3', { id: titleId }, `“${profile.name}”`, h('span', { class: 'group-count' }, `${subs.length} ${subs.length === 1 ? 'person' : 'people'}`)),
          h('ul', { class: 'items people' }, ...subs.map((sub) => subscriber(sub, profile, profiles))));
      })));
  }

  function subscriber(sub: Subscription, profile: Profile, profiles: Profile[]): HTMLLIElement {
    const name = nameOf(sub.subscriber);
    const others = profiles.filter((p) => p.id !== profile.id);
    const confirmArea = h('div', { class: 'confirm', id: `revoke-confirm-${sub.id}` });
    const askRevoke = () => {
      confirmArea.replaceChildren(
        h('p', { role: 'alert' }, `Stop sharing with ${name}? They lose your card at once. They are not told why.`),
        h('div', { class: 'actions' },
          button('Revoke', () => act(() => client.subscriptions.revoke(sub.id), `${name} no longer sees your card.`), { class: 'danger', id: `confirm-revoke-${sub.id}`, 'aria-label': `Revoke ${name}` }),
          button('Revoke and block', () => act(() => client.subscriptions.revoke(sub.id, { block: true }), `${name} no longer sees your card and cannot ask again.`), { class: 'danger', 'aria-label': `Revoke and block ${name}` }),
          button('Keep', () => confirmArea.replaceChildren())));
      document.getElementById(`confirm-revoke-${sub.id}`)?.focus();
    };
    const revoke = button('Revoke…', askRevoke, { class: 'danger subtle', 'aria-label': `Revoke ${name}…` });
    return h('li', { 'data-subscriber': sub.id },
      h('div', { class: 'item-main' }, person(sub.subscriber, `since ${ago(sub.created_at)}`)),
      others.length
        ? h('div', { class: 'decide' },
            h('div', { class: 'approve-row' },
              picker(sub, 'Move to', others, 'move'),
              button('Move', () => {
                const select = document.getElementById(`move-${sub.id}`) as HTMLSelectElement;
                const target = others.find((p) => p.id === select.value);
                return act(() => client.subscriptions.move(sub.id, select.value), `${name} now sees your “${target?.name ?? ''}” card.`);
              }, { 'aria-label': `Move ${name}` })),
            h('div', { class: 'actions' }, revoke))
        : revoke,
      confirmArea);
  }

  function blocks(blocked: Blocked[]): HTMLElement {
    return section('Blocked',
      blocked.length
        ? h('ul', { class: 'items people', id: 'blocked' }, ...blocked.map((b) =>
            h('li', { 'data-blocked': b.username },
              h('div', { class: 'item-main' }, person(b, `blocked ${ago(b.blocked_at)}`)),
              button('Unblock', () => act(() => client.subscriptions.unblock(b.username), `${nameOf(b)} can ask for your card again.`), { 'aria-label': `Unblock ${nameOf(b)}` }))))
        : h('p', { class: 'hint', id: 'blocked' }, 'Nobody. When you deny or revoke someone, you can block them so they cannot ask again.'));
  }

  /** Runs a change, says so, and redraws; a refusal says how to fix it. */
  async function act(change: () => Promise<unknown>, done: string): Promise<void> {
    error.textContent = '';
    try {
      await change();
      announce(done);
    } catch (failure) {
      error.textContent = isTransition(failure)
        ? 'That changed on another device meanwhile; here is how it is now.'
        : explain(failure);
      announce(error.textContent);
    }
    await redraw();
  }

  return {
    title: 'People',
    async render(main) {
      root = main;
      await redraw();
    },
    async onSignal(signal) {
      if (signal.kind === 'subscriptions.changed' || signal.kind === 'profiles.changed') await redraw();
    },
  };
}

function isTransition(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === 'invalid_transition';
}
