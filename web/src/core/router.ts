// Where the app is: the path as a state (core/state.ts), links handled without reloads, and the one place that
// says which screen a path shows.
import type { ComponentType } from 'preact';
import { state } from './state.js';
import { dismissToast } from './toast.js';

export const path = state(location.pathname);

/** A screen: a component, its title and main[data-view] (what tests and assistive tech wait for). */
export interface Screen {
  view: string;
  title: string;
  component: ComponentType;
  /** Shown to anyone, signed in or not (a public card, a share link). */
  open?: boolean;
  /** Only when signed out (sign-in, join, recovery). */
  signedOut?: boolean;
}

const exact = new Map<string, Screen>();
const prefixes: [string, Screen][] = [];

export function route(at: string, screen: Screen): void {
  exact.set(at, screen);
}
/** A path prefix (/@alice, /s/token): open pages. */
export function routePrefix(prefix: string, screen: Screen): void {
  prefixes.push([prefix, screen]);
}

export function screenFor(at: string): Screen | undefined {
  return exact.get(at) ?? prefixes.find(([prefix]) => at.startsWith(prefix) && at.length > prefix.length)?.[1];
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  dismissToast();
  const [pathname] = to.split(/[?#]/);
  if (to !== location.pathname + location.search) history[options.replace ? 'replaceState' : 'pushState'](null, '', to);
  path.value = pathname ?? '/';
  window.scrollTo({ top: 0 });
}

/**
 * Where to go after signing in or up: an open page (a share link) remembers itself before
 * sending someone to sign in, so they land back on it. Read once, then forgotten.
 */
const RETURN_KEY = 'vid.return-to';
export function rememberReturn(to: string): void {
  sessionStorage.setItem(RETURN_KEY, to);
}
export function takeReturn(fallback: string): string {
  const to = sessionStorage.getItem(RETURN_KEY);
  sessionStorage.removeItem(RETURN_KEY);
  // Only a path of this app: never another origin (//host) or a scheme.
  const pathname = to?.split(/[?#]/)[0] ?? '';
  return to && /^\/(?![/\\])/.test(to) && screenFor(pathname) ? to : fallback;
}

/** Links marked data-link (and every <Link>) move without a reload. */
export function handleLinks(): void {
  document.addEventListener('click', (event) => {
    const link = (event.target as Element | null)?.closest?.('a[data-link]');
    if (!(link instanceof HTMLAnchorElement) || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    const url = new URL(link.href);
    navigate(url.pathname + url.search);
  });
  window.addEventListener('popstate', () => {
    path.value = location.pathname;
  });
}
