// The frame around every screen: a header (brand and passing notes in one row, the offline banner:
// nothing in it ever covers a button), the navigation (a short bottom bar and a "More" list on a
// phone, a side list on a wide screen, a badge for what waits for you) and <main>.
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { accountActive, online, session } from '../core/client.js';
import { useResource } from '../core/cache.js';
import type { ListPage } from '../core/cache.js';
import { OFFLINE } from '../core/sentences.js';
import { path } from '../core/router.js';
import { useValue } from '../core/state.js';
import { toastText } from '../core/toast.js';
import { Icon } from './icons.js';

interface Link {
  href: string;
  label: string;
  icon?: string;
  /** Counted things waiting here. */
  badge?: number;
  /** Also current on these paths (a group's pages). */
  also?: string[];
}

function NavLink({ link, primary }: { link: Link; primary?: boolean }) {
  const at = useValue(path);
  const current = at === link.href || (link.also ?? []).includes(at);
  return (
    <li class={primary ? 'primary' : undefined}>
      <a href={link.href} data-link aria-current={current ? 'page' : undefined}>
        {link.icon ? <Icon name={link.icon} /> : null}
        <span class="nav-label">{link.label}</span>
        {link.badge ? <>{' '}<span class="badge-count">{link.badge > 99 ? '99+' : link.badge}<span class="vh"> waiting</span></span></> : null}
      </a>
    </li>
  );
}

/** How many requests wait for an answer: people asking to see a card, devices asking to join. */
function useWaiting(trusted: boolean): { people: number; devices: number } {
  // Nothing is asked while the account's state is unknown (a deleted account may ask for nothing).
  const active = useValue(accountActive);
  const requests = useResource<ListPage<unknown>>(active ? '/subscriptions?status=pending&limit=100' : undefined);
  const joins = useResource<ListPage<unknown>>(active && trusted ? '/auth/join/pending' : undefined);
  return { people: requests.data?.data.length ?? 0, devices: joins.data?.data.length ?? 0 };
}

function SignedInNav({ trusted }: { trusted: boolean }) {
  const [open, setOpen] = useState(false);
  const waiting = useWaiting(trusted);
  const at = useValue(path);
  const toggle = useRef<HTMLButtonElement>(null);
  // Moving on closes the list.
  useEffect(() => setOpen(false), [at]);
  // Escape closes it too, and gives the keyboard back to the button that opened it: listened for
  // as soon as the list is drawn (a layout effect), so an Escape pressed at once is not missed.
  useLayoutEffect(() => {
    if (!open) return undefined;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      toggle.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);
  // Contacts first: the cards you follow are why you come back. Then who sees yours (People),
  // sharing, and what you show; the account's settings wait under More.
  const primary: Link[] = [
    { href: '/contacts', label: 'Contacts', icon: 'contacts' },
    { href: '/people', label: 'People', icon: 'people', badge: waiting.people },
    { href: '/share', label: 'Share', icon: 'share' },
    { href: '/profiles', label: 'Profiles', icon: 'profiles' },
  ];
  const more: Link[] = [
    { href: '/fields', label: 'Fields' },
    { href: '/account', label: 'Account' },
    { href: '/phone-contacts', label: 'Phone contacts' },
    { href: '/security', label: 'Security' },
    { href: '/sessions', label: 'Sessions' },
    ...(trusted ? [{ href: '/add-device', label: 'Add a device', badge: waiting.devices }] : []),
    { href: '/data', label: 'Your data' },
  ];
  const moreCurrent = more.some((l) => l.href === at);
  const moreWaiting = more.reduce((n, l) => n + (l.badge ?? 0), 0);
  return (
    <nav id="nav" aria-label="Main">
      <ul class="nav-bar">
        {primary.map((link) => <NavLink key={link.href} link={link} primary />)}
        <li class="primary nav-more-toggle">
          <button type="button" ref={toggle} aria-expanded={open} aria-controls="nav-more" class={moreCurrent ? 'current' : undefined} onClick={() => setOpen(!open)}>
            <Icon name="more" />
            <span class="nav-label">More</span>
            {moreWaiting ? <>{' '}<span class="badge-count">{moreWaiting}<span class="vh"> waiting</span></span></> : null}
          </button>
        </li>
      </ul>
      <ul id="nav-more" class={`nav-more${open ? ' open' : ''}`}>
        {more.map((link) => <NavLink key={link.href} link={link} />)}
      </ul>
    </nav>
  );
}

function SignedOutNav() {
  const links: Link[] = [
    { href: '/', label: 'Sign in', icon: 'signin' },
    { href: '/join', label: 'Join with a code', icon: 'join' },
    { href: '/recover', label: 'Recover', icon: 'recover' },
  ];
  return (
    <nav id="nav" aria-label="Main">
      <ul class="nav-bar signed-out">{links.map((link) => <NavLink key={link.href} link={link} primary />)}</ul>
    </nav>
  );
}

/** `nav`: which navigation (none on the one screen of a deleted account). */
export function Shell({ view, title, nav, children }: { view: string; title: string; nav: 'signed-in' | 'signed-out' | 'none'; children: ComponentChildren }) {
  const main = useRef<HTMLElement>(null);
  const trusted = useValue(session)?.trusted ?? false;
  const note = useValue(toastText);
  const reachable = useValue(online);
  useEffect(() => {
    document.title = `${title} · VID`;
  }, [title]);
  // A new screen: focus moves to it (screen readers start reading there).
  useEffect(() => {
    if (!main.current?.contains(document.activeElement)) main.current?.focus({ preventScroll: true });
  }, [view]);
  return (
    <>
      <header class="top">
        <div class="top-bar">
          <a class="brand" href="/" data-link>VID</a>
          {/* Passing notes sit in the header's own row: they push nothing and cover nothing. */}
          <div id="status" class="status" role="status" aria-live="polite">{note}</div>
        </div>
        {reachable ? null : <p class="offline" role="status" id="offline">{OFFLINE}</p>}
      </header>
      <div class={`frame${nav === 'none' ? '' : ' with-nav'}`}>
        {nav === 'signed-in' ? <SignedInNav trusted={trusted} /> : nav === 'signed-out' ? <SignedOutNav /> : null}
        <main id="main" tabindex={-1} data-view={view} ref={main}>
          {children}
        </main>
      </div>
    </>
  );
}
