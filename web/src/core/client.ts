// The one client of the app (IndexedDB storage), and what every request tells the app: whether
// the server is reachable (the offline banner), and when a session ended or the account went.
import { createVidClient } from '../../../client/src/index.js';
import type { FetchLike, SessionInfo, VidProblemError } from '../../../client/src/index.js';
import { indexedDbStorage } from '../storage.js';
import { state } from './state.js';

/** false while requests cannot reach the server; back to true with the first answer. */
export const online = state(true);
/** The session (undefined: signed out; null: not read from storage yet). */
export const session = state<SessionInfo | undefined | null>(null);
/** The signed-in account is active (read from /me): only then may screens ask for its resources. */
export const accountActive = state(false);
/** Why the last session ended, for the sign-in screen (an operator's lock), read once. */
export const endedBecause = state<VidProblemError | undefined>(undefined);

type Hook = () => void;
const hooks = { reconnected: new Set<Hook>(), accountGone: new Set<Hook>(), sessionEnded: new Set<Hook>() };
/** Other parts of the app follow these moments (the cache retries, /me is read again, …). */
export function on(moment: keyof typeof hooks, hook: Hook): void {
  hooks[moment].add(hook);
}
const fire = (moment: keyof typeof hooks) => hooks[moment].forEach((hook) => hook());

const changeHooks = new Set<(path: string) => unknown>();
/** Told after each change this app made on the server (the path), before the call answers. */
export function onChange(hook: (path: string) => unknown): void {
  changeHooks.add(hook);
}

/** Back online: everything that waits for the server tries again now, not after its backoff. */
function reconnected(): void {
  if (online.value) return;
  online.value = true;
  clearInterval(probe);
  probe = undefined;
  fire('reconnected');
}

/** While offline, a cheap request every few seconds notices the server is back. */
let probe: ReturnType<typeof setInterval> | undefined;
function offline(): void {
  online.value = false;
  probe ??= setInterval(() => {
    globalThis.fetch('/health/live', { cache: 'no-store' }).then((answer) => answer.ok && reconnected(), () => undefined);
  }, 2_000);
}

const watchedFetch: FetchLike = async (input, init) => {
  let response: Response;
  try {
    response = await globalThis.fetch(input, init);
  } catch (error) {
    // Aborted on purpose (a page left, a stream replaced) says nothing about the network.
    if (!init.signal?.aborted) offline();
    throw error;
  }
  reconnected();
  // Any answer may say the account was deleted meanwhile (another tab or device).
  if (response.status === 403 && (response.headers.get('content-type') ?? '').includes('problem+json')) {
    const problem = (await response.clone().json().catch(() => undefined)) as { code?: string } | undefined;
    if (problem?.code === 'account_deleted') fire('accountGone');
  }
  return response;
};

export const client = createVidClient({
  baseUrl: `${location.origin}/api/v1`,
  storage: indexedDbStorage(),
  fetch: watchedFetch,
  onSessionEnded: (reason) => {
    endedBecause.value = reason;
    session.value = undefined;
    fire('sessionEnded');
  },
  // The resource cache reads again what the change touched, so the action's view shows it at once.
  onChanged: (path) => Promise.all([...changeHooks].map((hook) => hook(path))),
});

/** Reads the session from storage again (after sign-in, join, recovery or sign-out). */
export async function refreshSession(): Promise<SessionInfo | undefined> {
  const current = await client.session();
  session.value = current;
  return current;
}
