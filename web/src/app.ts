// The app's shared state: one client (IndexedDB storage), the router, the signal stream.
import { createVidClient, isProblem } from '../../client/src/index.js';
import type { AccountDeletion, FetchLike, Signal } from '../../client/src/index.js';
import { h } from './dom.js';
import { indexedDbStorage } from './storage.js';

/**
 * Any answer may say the account was deleted meanwhile (in another tab, or the grace state
 * was not known yet): every call goes through here, so no screen has to handle it itself.
 */
const watchedFetch: FetchLike = async (input, init) => {
  const response = await globalThis.fetch(input, init);
  if (response.status === 403 && (response.headers.get('content-type') ?? '').includes('problem+json')) {
    const problem = (await response.clone().json().catch(() => undefined)) as { code?: string } | undefined;
    if (problem?.code === 'account_deleted' && !lifecycle?.deleted) {
      lifecycle = undefined;
      void show();
    }
  }
  return response;
};

/** What a person reads when the operator has locked their account: why nothing works, and what to do. */
/** Why the last session ended, when the sign-in screen should say so (an operator's lock). */
export let signedOutBecause: string | undefined;
export function takeSignedOutReason(): string | undefined {
  const reason = signedOutBecause;
  signedOutBecause = undefined;
  return reason;
}

export const LOCKED_NOTE = 'This account is locked by the people who run this service, so it cannot be used for now. Contact them to have it unlocked.';

export const client = createVidClient({
  baseUrl: `${location.origin}/api/v1`,
  storage: indexedDbStorage(),
  fetch: watchedFetch,
  onSessionEnded: (reason) => {
    lifecycle = undefined;
    stopSignals();
    if (reason?.code === 'account_locked') {
      // Not a passing note: the sign-in screen keeps saying it until the next sign-in attempt.
      signedOutBecause = LOCKED_NOTE;
      void navigate('/');
    }
    else if (!PUBLIC.has(location.pathname) && !openRouteFor(location.pathname)) void navigate('/', 'You were signed out.');
  },
});

export interface View {
  title: string;
  render(main: HTMLElement): Promise<void> | void;
  /** A signal arrived for this account: refresh what it shows. */
  onSignal?(signal: Signal): void | Promise<void>;
  leave?(): void;
}

type Route = () => Promise<View>;
const routes = new Map<string, Route>();
/** The one screen of a deleted account (PRODUCT §8), whatever the route. */
let graceScreen: ((deletion: AccountDeletion) => Promise<View>) | undefined;
export const PUBLIC = new Set(['/', '/join', '/recover']);
/** Pages anyone may open, signed in or not, under a path prefix (/@username: a public card). */
const openPrefixes = new Map<string, { load: Route; name: string }>();
let current: View | undefined;

export function route(path: string, load: Route): void {
  routes.set(path, load);
}

export function graceRoute(load: (deletion: AccountDeletion) => Promise<View>): void {
  graceScreen = load;
}

/**
 * Whether this session's account is deleted, read from GET /me once per session: during the
 * grace every other route answers 403, so no screen (nor the event stream) may start.
 */
let lifecycle: { sessionId: string; deleted?: AccountDeletion } | undefined;

async function deletion(sessionId: string): Promise<AccountDeletion | undefined> {
  if (lifecycle?.sessionId !== sessionId) {
    try {
      const me = await client.me.get();
      const deleted = me.status === 'deleted' && me.deleted_at && me.purge_at ? { status: 'deleted' as const, deleted_at: me.deleted_at, purge_at: me.purge_at, schema_version: 1 as const } : undefined;
      lifecycle = { sessionId, deleted };
    } catch {
      // Offline or signed out meanwhile: the screen shows that; the next show asks again.
      return undefined;
    }
  }
  return lifecycle.deleted;
}

/** This session deleted the account (or restored it): show what that means without asking /me. */
export async function lifecycleChanged(deleted: AccountDeletion | undefined, path = location.pathname, note?: string): Promise<void> {
  const session = await client.session();
  lifecycle = session && { sessionId: session.sessionId, deleted };
  if (deleted) stopSignals();
  await navigate(path, note);
}

/** `name` is what main[data-view] says once the page is drawn. */
export function openRoute(prefix: string, load: Route, name = 'public-card'): void {
  openPrefixes.set(prefix, { load, name });
}

const openRouteFor = (path: string) => [...openPrefixes].find(([prefix]) => path.startsWith(prefix) && path.length > prefix.length)?.[1];

/**
 * Where to go after signing in or up: an open page (a share link) remembers itself before
 * sending someone to the welcome screen, so they land back on it. Read once, then forgotten.
 */
const RETURN_KEY = 'vid.return-to';
export function rememberReturn(path: string): void {
  sessionStorage.setItem(RETURN_KEY, path);
}
export function takeReturn(fallback: string): string {
  const path = sessionStorage.getItem(RETURN_KEY);
  sessionStorage.removeItem(RETURN_KEY);
  // Only a path of this app: never another origin (//host) or a scheme.
  const pathname = path?.split(/[?#]/)[0] ?? '';
  return path && /^\/(?![/\\])/.test(path) && (routes.has(pathname) || openRouteFor(pathname)) ? path : fallback;
}

let clearStatus: ReturnType<typeof setTimeout> | undefined;
export function announce(text: string): void {
  const status = document.getElementById('status')!;
  status.textContent = '';
  clearTimeout(clearStatus);
  setTimeout(() => (status.textContent = text), 30);
  clearStatus = setTimeout(() => (status.textContent = ''), 6_000);
}

export async function navigate(path: string, note?: string, replace = false): Promise<void> {
  if (path !== location.pathname) history[replace ? 'replaceState' : 'pushState'](null, '', path);
  await show(note);
}

/** Each show() counts; an earlier one still drawing stops at its next step. */
let shows = 0;

export async function show(note?: string): Promise<void> {
  const generation = ++shows;
  const stale = () => generation !== shows;
  const session = await client.session();
  let path = location.pathname;
  const open = openRouteFor(path);
  if (!open) {
    if (!routes.has(path)) path = session ? '/account' : '/';
    if (session && PUBLIC.has(path)) path = '/account';
    if (!session && !PUBLIC.has(path)) path = '/';
    if (path !== location.pathname) history.replaceState(null, '', path);
  }
  const deleted = session ? await deletion(session.sessionId) : undefined;
  if (stale()) return;
  current?.leave?.();
  current = undefined;
  const view = deleted && graceScreen ? await graceScreen(deleted) : await (open?.load ?? routes.get(path)!)();
  if (stale()) return;
  current = view;
  document.title = `${view.title} · VID`;
  renderNav(!!session, session?.trusted ?? false, !!deleted);
  // A new <main> each time: a screen left while still loading draws into the old one, unseen.
  const main = h('main', { id: 'main', tabindex: '-1' });
  document.getElementById('main')!.replaceWith(main);
  await view.render(main);
  if (stale()) return;
  // Set once the view is drawn: tests and assistive tech can rely on it.
  main.dataset.view = deleted ? 'deleted' : open ? open.name : path.slice(1) || 'welcome';
  if (deleted) stopSignals();
  else if (session) startSignals();
  main.focus({ preventScroll: true });
  if (note) announce(note);
}

function renderNav(signedIn: boolean, trusted: boolean, deleted = false): void {
  const nav = document.getElementById('nav')!;
  // A deleted account has one screen: no links to screens that would only show it again.
  const links: [string, string][] = deleted
    ? []
    : signedIn
      ? [['/account', 'Account'], ['/fields', 'Fields'], ['/profiles', 'Profiles'], ['/share', 'Share'], ['/people', 'People'], ['/contacts', 'Contacts'], ['/security', 'Security'], ['/sessions', 'Sessions'], ...(trusted ? [['/add-device', 'Add a device'] as [string, string]] : []), ['/data', 'Your data']]
      : [['/', 'Sign in'], ['/join', 'Join with a code'], ['/recover', 'Recover']];
  nav.replaceChildren(
    ...links.map(([href, label]) => {
      const a = document.createElement('a');
      a.href = href;
      a.textContent = label;
      a.dataset.link = '';
      if (href === location.pathname) a.setAttribute('aria-current', 'page');
      return a;
    }),
  );
}

let signals: AbortController | undefined;
export let streamState = 'off';

function startSignals(): void {
  if (signals) return;
  const controller = (signals = new AbortController());
  client.events
    .stream({
      signal: controller.signal,
      onStateChange: (state) => {
        streamState = state;
        document.body.dataset.stream = state;
      },
      onSignal: async (signal) => {
        document.body.dataset.lastSignal = signal.kind;
        await current?.onSignal?.(signal);
      },
      onResync: async () => {
        await show();
      },
    })
    .catch((error) => {
      if (signals === controller) signals = undefined;
      if (isProblem(error) && error.status === 401) void show('You were signed out.');
      // A 403 account_deleted: the fetch above has switched to the grace screen already.
    });
}

export function stopSignals(): void {
  signals?.abort();
  signals = undefined;
  document.body.dataset.stream = 'off';
}

/** A problem's detail (or the error's message) for people. */
export function explain(error: unknown): string {
  if (isProblem(error) && error.code === 'account_locked') return LOCKED_NOTE;
  if (isProblem(error)) return error.detail || error.title || error.code;
  if (error instanceof Error) return error.message;
  return String(error);
}
