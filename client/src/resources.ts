// A live cache of the API's resources, keyed by path (with its query): the key-stale-revalidate
// habit of TanStack Query and SWR, with signals as the invalidation source (PRODUCT §7: a signal
// says what changed, the client pulls it). Reads send If-None-Match from the copy held (RFC 9110
// §13.1.2), so a 304 keeps it; a signal naming an entry's resource revalidates it while someone
// watches it and drops it otherwise; after a gap in the stream (a resync) every entry is checked.
// A failed read keeps the copy held and is tried again while watched: nothing shown is lost.
import type { Signal } from './api.js';
import type { VidClient } from './client.js';
import { isProblem } from './errors.js';
import { SIGNAL_RESOURCES } from './generated/signal-kinds.js';

/** What the cache holds for one key, as a view renders it. */
export interface ResourceState<T = unknown> {
  /** The last answer, kept through revalidation and failures; undefined until one arrives. */
  readonly data: T | undefined;
  /** The entity tag it came with. */
  readonly etag: string | undefined;
  /** Why the last read failed (a VidProblemError or VidNetworkError), while it stays failed. */
  readonly error: unknown;
  /** A read is under way. */
  readonly loading: boolean;
  /** An answer or a refusal has arrived: "not loaded yet" is never shown as "empty". */
  readonly settled: boolean;
}

/**
 * Resources a signal's resource also touches (the signal catalogue names one path per kind), as
 * the server answers them: a passkey or authenticator app changed (`/auth/methods`) changes both
 * lists, the devices' key bundles and the security log; a session or the account changed is in the
 * security log; a join attempt that moved spent the code it used. The default `related` of every
 * cache, so the web app and `@vid/react` invalidate alike.
 */
export const RELATED_RESOURCES: Readonly<Record<string, readonly string[]>> = {
  '/auth/methods': ['/auth/totp', '/auth/security-log', '/keys/devices'],
  // An authenticator app enrolled, confirmed or removed is one of the methods listed too.
  '/auth/totp': ['/auth/methods'],
  // A photo deleted takes every field that shows it.
  '/me/photos': ['/me/fields'],
  // A request denied or a subscriber revoked with a block adds to the block list.
  '/subscriptions': ['/blocks'],
  // A contact removed takes its labels; a note saved (below /contacts) may add or drop some.
  '/contacts': ['/labels'],
  '/auth/sessions': ['/auth/security-log'],
  '/me': ['/auth/security-log'],
  '/auth/join/pending': ['/auth/join/code'],
  // A phone used a setup link, or first synced: the link's page follows both.
  '/dav-tokens': ['/dav-setup-links'],
};

/** How a resource cache relates signals to resources, and how it retries. */
export interface ResourceCacheOptions {
  /**
   * Resources a signal's resource also touches, beyond its own path and the paths below it: e.g.
   * `/auth/methods` (a passkey or authenticator app changed) touches `/auth/totp`. Default:
   * `RELATED_RESOURCES`.
   */
  related?: Record<string, readonly string[]>;
  /** The wait before retrying a watched entry whose read failed; default 2 s doubling to 30 s. */
  retryDelayMs?: (failures: number) => number;
  /** Timers (tests pass their own). */
  setTimeout?: (run: () => void, ms: number) => unknown;
  /** Cancels a timer `setTimeout` made. */
  clearTimeout?: (timer: unknown) => void;
}

/** Called after every change of a watched entry; read it with `peek`. */
export type Listener = () => void;

interface Entry {
  state: ResourceState;
  listeners: Set<Listener>;
  inFlight?: Promise<boolean>;
  /** Invalidated while a read was under way: read again when it ends. */
  again: boolean;
  failures: number;
  retry?: unknown;
}

const EMPTY: ResourceState = { data: undefined, etag: undefined, error: undefined, loading: false, settled: false };

/** The path part of a key (`/me/fields?limit=200` → `/me/fields`). */
export const pathOfKey = (key: string): string => key.split('?')[0] ?? key;

/** A signal's resource names a key when it is the key's path or a path above it. */
export function resourceCovers(resource: string, key: string): boolean {
  const path = pathOfKey(key);
  return path === resource || path.startsWith(resource.endsWith('/') ? resource : `${resource}/`);
}

/** The resources signals name (`/contacts/{id}/card` as a pattern of one segment per parameter). */
const SIGNALLED = [...new Set(Object.values(SIGNAL_RESOURCES))].map((template) =>
  new RegExp(`^${template.split('/').map((part) => (/^\{.*\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`));

/** Refusals that say the resource is not there (any more): the copy held goes too. */
const GONE = new Set([404, 410]);

/** A live cache of GET answers keyed by path and query, kept current by signals (README). */
export function createResourceCache(client: Pick<VidClient, 'send'>, options: ResourceCacheOptions = {}) {
  const entries = new Map<string, Entry>();
  const retryDelay = options.retryDelayMs ?? ((failures: number) => Math.min(30_000, 2_000 * 2 ** Math.max(0, failures - 1)));
  const setTimer = options.setTimeout ?? ((run, ms) => globalThis.setTimeout(run, ms));
  const clearTimer = options.clearTimeout ?? ((timer) => globalThis.clearTimeout(timer as ReturnType<typeof setTimeout>));

  const entryOf = (key: string): Entry => {
    let entry = entries.get(key);
    if (!entry) entries.set(key, (entry = { state: EMPTY, listeners: new Set(), again: false, failures: 0 }));
    return entry;
  };

  const update = (entry: Entry, change: Partial<ResourceState>) => {
    entry.state = { ...entry.state, ...change };
    for (const listener of [...entry.listeners]) listener();
  };

  /** Reads one key (If-None-Match from the copy held); answers whether its data changed. */
  function revalidate(key: string): Promise<boolean> {
    const entry = entryOf(key);
    if (entry.inFlight) {
      entry.again = true;
      return entry.inFlight;
    }
    clearTimer(entry.retry);
    entry.retry = undefined;
    update(entry, { loading: true });
    const run = (async (): Promise<boolean> => {
      let changed = false;
      try {
        const [path, search] = key.split('?') as [string, string | undefined];
        const query = search ? Object.fromEntries(new URLSearchParams(search)) : undefined;
        const held = entry.state.etag;
        const response = await client.send('GET', path as never, { query: query as never, headers: held ? { 'if-none-match': held } : {} } as never);
        entry.failures = 0;
        if (response.status === 304 && held) update(entry, { error: undefined, settled: true });
        else {
          changed = true;
          update(entry, { data: response.data, etag: response.headers.get('etag') ?? undefined, error: undefined, settled: true });
        }
      } catch (error) {
        const gone = isProblem(error) && GONE.has(error.status);
        changed = gone && entry.state.data !== undefined;
        update(entry, { error, settled: true, ...(gone ? { data: undefined, etag: undefined } : {}) });
        // Trouble on the way (offline, 5xx, limits): try again while someone is looking.
        if (!isProblem(error) || error.status >= 500 || error.status === 429) scheduleRetry(key, entry);
      } finally {
        entry.inFlight = undefined;
        update(entry, { loading: false });
      }
      if (entry.again) {
        entry.again = false;
        return (await revalidate(key)) || changed;
      }
      return changed;
    })();
    entry.inFlight = run;
    return run;
  }

  function scheduleRetry(key: string, entry: Entry): void {
    entry.failures++;
    if (!entry.listeners.size) return;
    clearTimer(entry.retry);
    entry.retry = setTimer(() => {
      entry.retry = undefined;
      if (entries.get(key) === entry && entry.listeners.size) void revalidate(key).catch(() => undefined);
    }, retryDelay(entry.failures));
  }

  /** Keys a resource names, its related resources included. */
  const keysFor = (resource: string): string[] => {
    const resources = [resource, ...((options.related ?? RELATED_RESOURCES)[resource] ?? [])];
    return [...entries.keys()].filter((key) => resources.some((r) => resourceCovers(r, key)));
  };

  /** Keys a change to `path` touches: see `changed`. */
  const keysChangedBy = (path: string): string[] => {
    const related = options.related ?? RELATED_RESOURCES;
    const segments = pathOfKey(path).split('/').filter(Boolean);
    const above = segments.map((_, i) => `/${segments.slice(0, i + 1).join('/')}`);
    // The signal that reports this change names the nearest such resource above it (`/profiles` for
    // an exposure, whose card preview changes too).
    const signalled = above.findLast((resource) => SIGNALLED.some((pattern) => pattern.test(resource)));
    // The collection covers what is below it (`/auth/join/issue` → `/auth/join/code`), unless it is
    // a top-level name over several resources (`/auth/logout` must not read every `/auth/…`).
    const collection = above.length > 2 ? above.slice(-2, -1) : [];
    const own = [...above.slice(-1), ...collection, ...(signalled ? [signalled] : [])];
    const covering = [...own, ...[...above, ...own].flatMap((resource) => related[resource] ?? [])];
    return [...entries.keys()].filter((key) => above.includes(pathOfKey(key)) || covering.some((r) => resourceCovers(r, key)));
  };

  /** Watched entries are read again; the others are dropped, to be read when next watched. */
  function invalidate(resource: string): Promise<void> {
    return refresh(keysFor(resource));
  }

  function refresh(keys: string[]): Promise<void> {
    const reads: Promise<unknown>[] = [];
    for (const key of keys) {
      const entry = entries.get(key)!;
      if (entry.listeners.size) reads.push(revalidate(key).catch(() => undefined));
      else if (!entry.inFlight) entries.delete(key);
      else entry.again = true;
    }
    return Promise.all(reads).then(() => undefined);
  }

  return {
    /** The state of a key now (no read). */
    peek<T = unknown>(key: string): ResourceState<T> {
      return (entries.get(key)?.state ?? EMPTY) as ResourceState<T>;
    },

    /**
     * Calls `listener` whenever the key's state changes, and reads it when nothing is held yet
     * (or the last read failed). Answers the function that stops watching.
     */
    watch(key: string, listener: Listener): () => void {
      const entry = entryOf(key);
      entry.listeners.add(listener);
      if (!entry.inFlight && (!entry.state.settled || entry.state.error !== undefined)) void revalidate(key).catch(() => undefined);
      return () => {
        entry.listeners.delete(listener);
        if (!entry.listeners.size) {
          clearTimer(entry.retry);
          entry.retry = undefined;
        }
      };
    },

    /** The data of a key, read when not held yet (for code that needs it once, not a view). */
    async read<T = unknown>(key: string): Promise<T> {
      const entry = entryOf(key);
      if (!entry.state.settled || entry.state.error !== undefined) await revalidate(key);
      const { data, error } = entry.state;
      if (error !== undefined) throw error;
      return data as T;
    },

    /** Reads the key again now (If-None-Match from the copy held); true when the copy changed. */
    revalidate,
    /** What a signal's resource names (its path, the paths below it, its `related`): read again while watched, dropped otherwise. */
    invalidate,

    /**
     * This client changed `path` (a POST, PUT, PATCH or DELETE the server accepted; the client's
     * `onChanged`): what it touches is read again while watched, dropped otherwise, so the change
     * shows at once rather than when its signal arrives. That is the path and the paths below it;
     * its collection and what is below it (`/auth/join/issue` → `/auth/join/code`) unless that is a
     * top-level name (`/auth`); what the signal reporting it covers (`/profiles/p1/exposures/f1` →
     * `/profiles`, every preview); each resource above it (`/auth/methods/passkeys/finish` →
     * `/auth/methods`); and the `related` of each of those, as signals use them.
     */
    changed(path: string): Promise<void> {
      return refresh(keysChangedBy(path));
    },

    /** An update answered the resource's new state: hold it without reading again. */
    put<T>(key: string, data: T, etag?: string): void {
      const entry = entryOf(key);
      entry.failures = 0;
      update(entry, { data, etag, error: undefined, settled: true });
    },

    /** Forgets one key (the thing is gone) or every key (signed out); watchers see nothing held. */
    drop(key?: string): void {
      for (const [k, entry] of [...entries]) {
        if (key !== undefined && k !== key) continue;
        clearTimer(entry.retry);
        entry.retry = undefined;
        entry.failures = 0;
        if (entry.listeners.size) update(entry, EMPTY);
        else entries.delete(k);
      }
    },

    /** A signal arrived: the entries its resource names are read again or dropped. */
    onSignal(signal: Pick<Signal, 'resource'>): Promise<void> {
      return invalidate(signal.resource);
    },

    /** Signals were missed (a resync): every watched entry is checked, the others dropped. */
    resync(): Promise<void> {
      return invalidate('/');
    },

    /** Watched entries whose last read failed are tried now (the network came back). */
    retryFailed(): Promise<void> {
      const reads = [...entries].filter(([, e]) => e.listeners.size && e.state.error !== undefined && !e.inFlight).map(([key]) => revalidate(key).catch(() => undefined));
      return Promise.all(reads).then(() => undefined);
    },

    /** The keys held (tests, diagnostics). */
    keys(): string[] {
      return [...entries.keys()];
    },
  };
}

/** A cache as `createResourceCache` makes it. */
export type ResourceCache = ReturnType<typeof createResourceCache>;
