// The app's one resource cache (client/src/resources.ts): views read server state only through
// useResource, never fetch on their own and never keep a copy; signals and resyncs keep it live.
import { useEffect, useState } from 'preact/hooks';
import { createResourceCache } from '../../../client/src/index.js';
import type { ResourceState } from '../../../client/src/index.js';
import { client, on, onChange, session } from './client.js';

// Which resources a signal also touches is the client's RELATED_RESOURCES (the cache's default),
// the same table @vid/react's caches use.
export const cache = createResourceCache(client, {
  // Offline: try again soon, and never wait long once the server is back.
  retryDelayMs: (failures) => Math.min(8_000, 1_000 * 2 ** Math.max(0, failures - 1)),
});

on('reconnected', () => void cache.retryFailed());
// A change this app made is read again through the same map as signals (RELATED_RESOURCES), and
// before the action answers: views never name the paths their actions touch.
onChange((path) => {
  // Revoking this device's own session signs it out: nothing is left to read (a read would meet a 401).
  if (session.value && path === `/auth/sessions/${session.value.sessionId}`) return undefined;
  return cache.changed(path);
});
on('sessionEnded', () => cache.drop());

/**
 * The state of one API path (with its query), read and kept current while the view shows it; no
 * key, nothing asked. The same hook as @vid/react's useResource (watch the key, render what the
 * cache holds), on Preact's own hooks so the app does not carry preact/compat.
 */
export function useResource<T>(key: string | undefined): ResourceState<T> {
  const [, setTick] = useState(0);
  useEffect(() => (key ? cache.watch(key, () => setTick((tick) => tick + 1)) : undefined), [key]);
  return cache.peek<T>(key ?? '');
}

/** A list answer's items (`{data, next_cursor, has_more}`). */
export interface ListPage<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}
