// @vid/react: hooks over @vid/client's resource cache (client/src/resources.ts). A view names the
// API path it shows; the cache reads it (If-None-Match from the copy held), keeps it while the
// view is mounted and reads it again when a signal names it; the provider follows the event
// stream into the cache. Nothing here fetches on its own or keeps a second copy, as in the web
// app (web/src/core/cache.ts), whose useResource is the same hook on Preact's own hooks.
// Written with createElement, not JSX, and only hooks preact/compat has, so Preact apps alias
// `react` to `preact/compat` and use the same build.
import { createContext, createElement, useCallback, useContext, useEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import type { ReactNode } from 'react';
import { createResourceCache } from '@vid/client';
import type { Card, Contact, Me, ResourceCache, ResourceState, StreamState, VidClient } from '@vid/client';

/** What `VidProvider` puts in reach of every hook below it. */
export interface VidContextValue {
  /** The client the app made (`createVidClient`). */
  readonly client: VidClient;
  /** The resource cache the hooks read; the provider's own unless one was passed. */
  readonly cache: ResourceCache;
}

const VidContext = createContext<VidContextValue | undefined>(undefined);

/** The props of `VidProvider`. */
export interface VidProviderProps {
  /** The client (`createVidClient`), made once for the app. */
  client: VidClient;
  /**
   * A cache to share with code outside React (`createResourceCache(client)`); by default the
   * provider makes one for its client.
   */
  cache?: ResourceCache;
  /**
   * Follow the event stream into the cache while mounted, so every watched resource stays current
   * (default true). Pass whether someone is signed in: the stream needs a session, and ends on a
   * 401 until `live` changes again.
   */
  live?: boolean;
  /** The stream's state (`streaming` once it is live), e.g. for a "live" mark. */
  onStreamState?: (state: StreamState) => void;
  /** The app. */
  children?: ReactNode;
}

/**
 * Gives the hooks below it a client and its resource cache, and keeps the cache live: each signal
 * of the event stream reads again (or drops) the entries it names, and after a gap every watched
 * entry is checked (a 304 for each one still current).
 */
export function VidProvider(props: VidProviderProps): ReactNode {
  const { client, live = true, onStreamState } = props;
  const cache = useMemo(() => props.cache ?? createResourceCache(client), [client, props.cache]);
  const stateHook = useRef(onStreamState);
  stateHook.current = onStreamState;

  useEffect(() => {
    if (!live) return undefined;
    const stop = new AbortController();
    // A stream without a cursor starts from now: once it has a position, check what the views
    // read before it opened (as contactCards does), so no change between the two is missed.
    let caughtUp = false;
    void client.events
      .stream({
        signal: stop.signal,
        onSignal: (signal) => cache.onSignal(signal),
        onResync: () => cache.resync(),
        onCursor: () => {
          if (caughtUp) return undefined;
          caughtUp = true;
          return cache.resync();
        },
        onStateChange: (state) => stateHook.current?.(state),
      })
      .catch(() => undefined);
    return () => stop.abort();
  }, [client, cache, live]);

  const value = useMemo<VidContextValue>(() => ({ client, cache }), [client, cache]);
  return createElement(VidContext.Provider, { value }, props.children);
}

/** The client and cache of the nearest `VidProvider` (throws outside one). */
export function useVid(): VidContextValue {
  const value = useContext(VidContext);
  if (!value) throw new Error('@vid/react: a hook was used outside <VidProvider>');
  return value;
}

const nothing = () => undefined;

/**
 * One API path (with its query, e.g. `/me/fields?limit=200`) as the cache holds it, read when
 * nothing is held and kept current while the component is mounted. `undefined` asks for nothing
 * (e.g. until an id is known). `data` stays through a new read and a failed one; `settled` tells
 * "not read yet" from "empty".
 */
export function useResource<T = unknown>(key: string | undefined): ResourceState<T> {
  const { cache } = useVid();
  const subscribe = useCallback((onChange: () => void) => (key ? cache.watch(key, onChange) : nothing), [cache, key]);
  // peek answers the same object until the entry changes: a stable snapshot, as React requires.
  const snapshot = () => cache.peek<T>(key ?? '');
  return useSyncExternalStore(subscribe, snapshot, snapshot);
}

/** Several keys at once (the cards of a list): one state per key, in order. */
function useResources<T>(keys: readonly string[]): ReadonlyArray<ResourceState<T>> {
  const { cache } = useVid();
  const joined = keys.join('\n');
  const last = useRef<ReadonlyArray<ResourceState<T>>>([]);
  const subscribe = useCallback(
    (onChange: () => void) => {
      const stops = joined ? joined.split('\n').map((key) => cache.watch(key, onChange)) : [];
      return () => stops.forEach((stop) => stop());
    },
    [cache, joined],
  );
  const snapshot = () => {
    const next = keys.map((key) => cache.peek<T>(key));
    const previous = last.current;
    if (next.length === previous.length && next.every((state, i) => state === previous[i])) return previous;
    last.current = next;
    return next;
  };
  return useSyncExternalStore(subscribe, snapshot, snapshot);
}

/**
 * The signed-in account (`GET /me`), kept current by `account.changed` and `me.changed`. With no
 * one signed in, `error` is the 401 problem (`isProblem(error, 'unauthenticated')`).
 */
export function useAccount(): ResourceState<Me> {
  return useResource<Me>('/me');
}

/** One contact of `useContacts`, with the card they show you. */
export interface LiveContact {
  /** The contact (`GET /contacts/{id}`): who, and the status of your request. */
  readonly contact: Contact;
  /** The card they show you now; undefined until it is read. */
  readonly card: Card | undefined;
}

/** What `useContacts` answers. */
export interface LiveContacts {
  /** The people you follow, each with their card, in the list's order. */
  readonly contacts: readonly LiveContact[];
  /** The list and every card have been read (or refused) once. */
  readonly settled: boolean;
  /** A read is under way. */
  readonly loading: boolean;
  /** Why the list or a card could not be read, while it stays so. */
  readonly error: unknown;
}

/**
 * The live contact list: the people you follow (the first 200 active contacts) and the card each
 * one shows you. A contact who changes their card (`contact.card.changed`) is read again and the
 * component renders the new card; a contact added or gone (`contacts.changed`) reads the list again.
 */
export function useContacts(): LiveContacts {
  const list = useResource<{ data: Contact[] }>('/contacts?status=active&limit=200');
  const people = useMemo(() => list.data?.data ?? [], [list.data]);
  const cards = useResources<Card>(useMemo(() => people.map((contact) => `/contacts/${encodeURIComponent(contact.id)}/card`), [people]));
  return useMemo(() => {
    const states = [list, ...cards];
    return {
      contacts: people.map((contact, i) => ({ contact, card: cards[i]?.data })),
      settled: states.every((state) => state.settled),
      loading: states.some((state) => state.loading),
      error: states.find((state) => state.error !== undefined)?.error,
    };
  }, [list, people, cards]);
}
