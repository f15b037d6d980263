// /s/<token>: the page a share link (or its QR code) opens, for anyone. It says whose card it is
// and whether they approve each request; signed out, it offers sign-in or sign-up and comes back
// here afterwards; signed in, "Subscribe" redeems the link and goes to the contact.
import { isProblem } from '../../../client/src/index.js';
import { client, explain, navigate, rememberReturn, type View } from '../app.js';
import { initials } from '../card.js';
import { button, day, h, message } from '../dom.js';

export default async function shareLink(): Promise<View> {
  const token = decodeURIComponent(location.pathname.slice('/s/'.length));
  const here = location.pathname;
  let root: HTMLElement;

  function problemPage(title: string, text: string): void {
    document.title = `${title} · VID`;
    root.replaceChildren(
      h('div', { class: 'public-page' },
        h('section', { class: 'card empty-state', id: 'share-link-problem' },
          h('h1', {}, title),
          h('p', {}, text),
          h('p', {}, h('a', { href: '/', 'data-link': '' }, 'Go to VID')))),
    );
  }

  function failed(error: unknown): boolean {
    if (isProblem(error) && error.status === 410) {
      problemPage('This link no longer works', 'It was revoked, has expired or has been used as often as allowed. Ask the person who shared it for a new link.');
      return true;
    }
    if (isProblem(error) && (error.status === 404 || error.status === 400)) {
      problemPage('This link is not valid', 'No card is shared under this link. Check that you copied all of it, or ask the person who shared it to send it again.');
      return true;
    }
    return false;
  }

  /** Goes to the welcome screen, which brings the person back here once they are signed in. */
  const toWelcome = (focus: 'username' | 'new-username') => ((event: Event) => {
    event.preventDefault();
    rememberReturn(here);
    void navigate('/').then(() => {
      const input = document.querySelector<HTMLInputElement>(`main input[name="${focus}"]`);
      input?.scrollIntoView({ block: 'center' });
      input?.focus({ preventScroll: true });
    });
  }) as EventListener;

  async function draw(): Promise<void> {
    let link;
    try {
      link = await client.shareLinks.resolve(token);
    } catch (error) {
      if (!failed(error)) problemPage('This link could not be opened', `${explain(error)} Try again in a moment.`);
      return;
    }
    const session = await client.session();
    const me = session ? await client.me.get().catch(() => undefined) : undefined;
    const name = link.owner.display_name || link.owner.username;
    document.title = `${name} shares a card · VID`;
    const msg = message('error');

    let next: HTMLElement[];
    if (!me) {
      next = [
        h('p', {}, 'To see the card and keep it up to date, sign in to VID or create a free account with a passkey. You come back to this page afterwards.'),
        h('div', { class: 'invite-actions' },
          h('a', { class: 'button primary', href: '/', id: 'invite-sign-in', onclick: toWelcome('username') }, 'Sign in'),
          h('a', { class: 'button', href: '/', id: 'invite-sign-up', onclick: toWelcome('new-username') }, 'Create an account')),
      ];
    } else if (me.username === link.owner.username) {
      next = [
        h('p', { class: 'notice', role: 'note' }, 'This is your own link. Show its QR code or send it to the people you want to share this card with.'),
        h('div', { class: 'invite-actions' }, h('a', { class: 'button', href: '/share', 'data-link': '' }, 'Your share links')),
      ];
    } else {
      const subscribe = button('Subscribe', async () => {
        msg.textContent = '';
        subscribe.disabled = true;
        subscribe.textContent = 'Subscribing…';
        try {
          const contact = await client.shareLinks.redeem(token);
          await navigate(`/contacts?c=${encodeURIComponent(contact.id)}`,
            contact.status === 'active' ? `You now see ${name}’s card.` : `Request sent. You see ${name}’s card once they approve it.`);
        } catch (error) {
          if (isProblem(error, 'already_subscribed')) {
            const id = (error.problem as { contact_id?: string }).contact_id;
            await navigate(id ? `/contacts?c=${encodeURIComponent(id)}` : '/contacts', `You already subscribe to ${name}.`);
            return;
          }
          if (failed(error)) return;
          msg.textContent = isProblem(error, 'subscription_refused')
            ? `${name} does not accept requests from this account.`
            : explain(error);
          subscribe.disabled = false;
          subscribe.textContent = 'Subscribe';
        }
      }, { class: 'primary', id: 'subscribe' });
      next = [
        h('div', { class: 'invite-actions' }, subscribe),
        h('p', { class: 'hint' }, `Signed in as @${me.username}. ${name} sees your name and username, and nothing else about you.`),
        msg,
      ];
    }

    root.replaceChildren(
      h('div', { class: 'public-page' },
        h('section', { class: 'card invite', 'aria-labelledby': 'invite-title' },
          h('div', { class: 'avatar', 'aria-hidden': 'true' }, initials(name)),
          h('h1', { id: 'invite-title' },
            h('strong', {}, name), ' ', h('span', { class: 'invite-username' }, `(@${link.owner.username})`),
            ` wants to share their “${link.profile_name}” card with you`),
          h('ul', { class: 'invite-facts' },
            h('li', { 'data-approval': link.auto_approve ? 'automatic' : 'manual' }, link.auto_approve
              ? 'You see the card as soon as you subscribe.'
              : `${name} approves each request: you see the card once they do.`),
            h('li', {}, 'When they change their details, your copy changes too.'),
            link.expires_at ? h('li', {}, `This link works until ${day(link.expires_at)}.`) : null),
          ...next),
        me ? null : h('p', { class: 'public-footer' }, 'Cards shared with VID: your details, kept current with the people you choose.')),
    );
  }

  return {
    title: 'Share link',
    async render(main) {
      root = main;
      await draw();
    },
  };
}
