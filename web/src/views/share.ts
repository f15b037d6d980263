// Share: a link (and its QR code) that lets someone subscribe to one of your profiles. Pick the
// profile, how long the link works, how often, and whether you approve each person; then show
// the code or send the link. Your links are listed with their uses and can be shown again or
// revoked. Changes from other devices (a link used, revoked, a profile renamed) redraw in place.
import QRCode from 'qrcode';
import type { Profile, ShareLink } from '../../../client/src/index.js';
import { announce, client, explain, type View } from '../app.js';
import { ago, button, day, field, h, message, section, serial } from '../dom.js';

const EXPIRIES: [string, number | undefined][] = [['Never', undefined], ['In 1 day', 1], ['In 7 days', 7], ['In 30 days', 30]];

const usesText = (link: ShareLink): string =>
  link.max_uses === null
    ? `Used ${link.uses} ${link.uses === 1 ? 'time' : 'times'} · no limit`
    : `Used ${link.uses} of ${link.max_uses} ${link.max_uses === 1 ? 'time' : 'times'}`;

const expiryText = (link: ShareLink): string =>
  link.expires_at === null ? 'Never expires' : link.state === 'expired' ? `Expired ${day(link.expires_at)}` : `Works until ${day(link.expires_at)}`;

const approvalText = (link: ShareLink): string => (link.auto_approve ? 'Approved automatically' : 'You approve each person');

const STATE: Record<ShareLink['state'], string> = { active: 'Active', expired: 'Expired', used_up: 'Used up' };

export default async function share(): Promise<View> {
  let root: HTMLElement;
  let shownId = new URLSearchParams(location.search).get('link') ?? undefined;
  const queue = serial();
  const error = message('error');

  // The form is built once: a redraw (a signal from another device) keeps what is being typed.
  const profile = h('select', { id: 'share-profile', name: 'profile_id', required: true });
  const expiry = h('select', { id: 'share-expiry', name: 'expires' }, ...EXPIRIES.map(([label, days]) => h('option', { value: days ?? '' }, label)));
  const maxUses = h('input', { id: 'share-max-uses', name: 'max_uses', type: 'number', min: 1, max: 100000, step: 1, inputmode: 'numeric', placeholder: 'No limit', autocomplete: 'off' });
  const auto = h('input', { type: 'checkbox', id: 'share-auto', name: 'auto_approve' });
  const formMsg = message('error');
  const create = h('button', { type: 'submit', class: 'primary', id: 'create-link' }, 'Create link');
  const form = h('form', {
    id: 'share-form',
    onsubmit: (async (e: Event) => {
      e.preventDefault();
      formMsg.textContent = '';
      const days = Number(expiry.value) || undefined;
      const uses = maxUses.value.trim() ? Number(maxUses.value) : undefined;
      if (uses !== undefined && (!Number.isInteger(uses) || uses < 1 || uses > 100000)) {
        formMsg.textContent = 'Max uses is a whole number from 1 to 100000; leave it empty for no limit.';
        maxUses.focus();
        return;
      }
      create.disabled = true;
      try {
        const link = await client.shareLinks.create({
          profile_id: profile.value,
          auto_approve: auto.checked,
          ...(days ? { expires_at: new Date(Date.now() + days * 86_400_000).toISOString() } : {}),
          ...(uses ? { max_uses: uses } : {}),
        });
        showLink(link.id);
        announce('Share link created.');
        await redraw();
        document.getElementById('share-qr')?.scrollIntoView({ block: 'start' });
        document.getElementById('copy-link')?.focus({ preventScroll: true });
      } catch (failure) {
        formMsg.textContent = explain(failure);
      } finally {
        create.disabled = false;
      }
    }) as EventListener,
  },
    h('div', { class: 'form-grid' },
      field('Profile', profile, 'They get the card of this profile, and only that.'),
      field('Link expires', expiry),
      field('Max uses (optional)', maxUses, 'Empty: as many people as you like.')),
    h('div', { class: 'check' },
      auto,
      h('label', { for: 'share-auto' }, 'Approve automatically',
        h('span', { class: 'hint block' }, 'Whoever opens the link sees your card at once. Leave it off to approve each person under People.'))),
    h('div', { class: 'actions' }, create),
    formMsg);

  function showLink(id: string | undefined): void {
    shownId = id;
    history.replaceState(null, '', id ? `/share?link=${encodeURIComponent(id)}` : '/share');
  }

  async function load() {
    const profiles: Profile[] = [];
    for await (const p of client.profiles.list()) profiles.push(p);
    const links: ShareLink[] = [];
    for await (const l of client.shareLinks.list()) links.push(l);
    // Newest first: the one just made is on top.
    return { profiles, links: links.reverse() };
  }

  const redraw = () => queue(draw);

  async function draw(): Promise<void> {
    const { profiles, links } = await load();
    const names = new Map(profiles.map((p) => [p.id, p.name]));
    const focused = document.activeElement?.id;
    const chosen = profile.value;
    profile.replaceChildren(...profiles.map((p) => h('option', { value: p.id }, p.name, p.public ? ' (public card)' : '')));
    if (profiles.some((p) => p.id === chosen)) profile.value = chosen;
    const shown = links.find((l) => l.id === shownId && l.state === 'active');
    if (shownId && !shown) showLink(undefined);

    if (!profiles.length) {
      root.replaceChildren(
        h('h1', {}, 'Share'),
        h('p', { class: 'lead' }, 'A share link lets someone subscribe to one of your profiles: they scan its QR code or open the link, and your card stays current on their side.'),
        h('section', { class: 'card empty-state', id: 'share-empty' },
          h('h2', {}, 'Create a profile first'),
          h('p', {}, 'A link shares the card of one profile, for example “Work” with your work phone and e-mail. Make one and choose what it shows; then come back here.'),
          h('a', { class: 'button primary', href: '/profiles', 'data-link': '' }, 'Go to Profiles')),
      );
      return;
    }

    root.replaceChildren(
      h('h1', {}, 'Share'),
      h('p', { class: 'lead' }, 'A share link lets someone subscribe to one of your profiles: they scan its QR code or open the link, and your card stays current on their side.'),
      error,
      h('div', { class: `share-workspace${shown ? ' showing' : ''}` },
        shown ? await qrPanel(shown, names.get(shown.profile_id) ?? 'a deleted profile') : null,
        h('div', { class: 'share-main' },
          section('New share link', form),
          section('Your links', linkList(links, names)))),
    );
    if (focused) document.getElementById(focused)?.focus({ preventScroll: true });
  }

  async function qrPanel(link: ShareLink, profileName: string): Promise<HTMLElement> {
    const qr = h('div', { class: 'qr qr-large', role: 'img', 'aria-label': `QR code of the link to your “${profileName}” card` });
    // An SVG string from the qrcode library (no script, no inline style): CSP-safe.
    qr.innerHTML = await QRCode.toString(link.url, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
    const url = h('p', { class: 'share-url', id: 'share-url' }, link.url);
    const copyMsg = message('error');
    const copy = button('Copy link', async () => {
      copyMsg.textContent = '';
      try {
        await navigator.clipboard.writeText(link.url);
        copy.textContent = 'Copied';
        announce('Link copied.');
        setTimeout(() => (copy.textContent = 'Copy link'), 2_000);
      } catch {
        getSelection()?.selectAllChildren(url);
        copyMsg.textContent = 'This browser did not allow copying: the link is selected, copy it from the keyboard or menu.';
      }
    }, { class: 'primary', id: 'copy-link' });
    const nativeShare = typeof navigator.share === 'function'
      ? button('Share…', () => navigator.share({ title: `My “${profileName}” card`, url: link.url }).catch(() => undefined), { id: 'native-share' })
      : null;
    const id = 'share-qr-title';
    return h('section', { class: 'card share-qr', id: 'share-qr', 'aria-labelledby': id, 'data-share-link': link.id },
      h('h2', { id }, `Your “${profileName}” card`),
      h('p', { class: 'hint' }, 'Let them scan this with their phone’s camera, or send them the link.'),
      qr,
      url,
      h('div', { class: 'copy-row' }, copy, nativeShare),
      copyMsg,
      h('p', { class: 'item-meta' }, `${approvalText(link)} · ${usesText(link)} · ${expiryText(link)}`),
      button('Done', () => {
        showLink(undefined);
        void redraw();
      }, { class: 'subtle', id: 'hide-qr' }));
  }

  function linkList(links: ShareLink[], names: Map<string, string>): HTMLElement {
    if (!links.length) return h('p', { class: 'hint', id: 'share-links' }, 'No links yet. Create one above: you can show its QR code again at any time.');
    return h('ul', { class: 'items', id: 'share-links' }, ...links.map((link) => {
      const name = names.get(link.profile_id) ?? 'Deleted profile';
      const created = ago(link.created_at);
      return h('li', { 'data-share-link': link.id, 'data-state': link.state, class: link.id === shownId ? 'current' : undefined },
        h('div', { class: 'item-main' },
          h('strong', {}, `“${name}”`, ' ', link.state === 'active' ? null : h('span', { class: 'badge muted' }, STATE[link.state])),
          h('div', { class: 'item-meta' }, `${approvalText(link)} · ${usesText(link)}`),
          h('div', { class: 'item-meta' }, `${expiryText(link)} · created ${created}`)),
        h('div', { class: 'actions' },
          link.state !== 'active'
            ? null
            : link.id === shownId
              ? button('Hide QR', () => {
                  showLink(undefined);
                  void redraw();
                }, { 'aria-label': `Hide the QR code of the “${name}” link created ${created}` })
              : button('Show QR', () => {
                  showLink(link.id);
                  void redraw().then(() => document.getElementById('share-qr')?.scrollIntoView({ block: 'start' }));
                }, { 'aria-label': `Show the QR code of the “${name}” link created ${created}` }),
          button('Revoke', () => act(async () => {
            await client.shareLinks.revoke(link.id);
            if (link.id === shownId) showLink(undefined);
          }, 'Link revoked. People who already subscribed keep their access.'), { class: 'danger', 'aria-label': `Revoke the “${name}” link created ${created}` })));
    }));
  }

  /** Runs a change, says so, and redraws; a refusal says how to fix it. */
  async function act(change: () => Promise<unknown>, done: string): Promise<void> {
    error.textContent = '';
    try {
      await change();
      announce(done);
    } catch (failure) {
      error.textContent = explain(failure);
      announce(error.textContent);
    }
    await redraw();
  }

  return {
    title: 'Share',
    async render(main) {
      root = main;
      await redraw();
    },
    async onSignal(signal) {
      if (signal.kind === 'share_links.changed' || signal.kind === 'profiles.changed') await redraw();
    },
  };
}
