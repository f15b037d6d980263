// The app's one resource cache (client/src/resources.ts): views read server state only through
// useResource, never fetch on their own and never keep a copy; signals and resyncs keep it live.
import { useEffect, useState } from 'preact/hooks';
import { createResourceCache } from '../../../client/src/index.js';
import type { ResourceState } from '../../../client/src/index.js';
import { client, on } from './client.js';

/** A signal's resource also touches these (the catalogue names one path per kind). */
const RELATED: Record<string, string[]> = {
  // A passkey or authenticator app: both lists, and the activity that logs it.
  '/auth/methods': ['/auth/totp', '/auth/security-log', '/keys/devices'],
  '/auth/sessions': ['/auth/security-log'],
  '/me': ['/auth/security-log'],
  // A join attempt moves: the code it used is spent.
  '/auth/join/pending': ['/auth/join/code'],
  // A phone used a setup link, or first synced: the link's page follows both.
  '/dav-tokens': ['/dav-setup-links'],
};

export const cache = createResourceCache(client, {
  related: RELATED,
  // Offline: try again soon, and never wait long once the server is back.
  retryDelayMs: (failures) => Math.min(8_000, 1_000 * 2 ** Math.max(0, failures - 1)),
});

on('reconnected', () => void cache.retryFailed());
on('sessionEnded', () => cache.drop());

/** The state of one API path (with its query), read and kept current while the view shows it. */
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
