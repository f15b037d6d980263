// The signal stream, followed while a session is open and its account active: each signal goes
// to the cache (which reads again what it names); a resync checks everything. Screens that must
// react to a moment, not a resource (a code voided), listen with onSignal.
import { isProblem } from '../../../client/src/index.js';
import type { Signal, SignalKind, StreamState } from '../../../client/src/index.js';
import { cache } from './cache.js';
import { client, on, refreshSession } from './client.js';
import { state } from './state.js';

export const streamState = state<StreamState | 'off'>('off');
const listeners = new Set<(signal: Signal) => void>();
let controller: AbortController | undefined;
/** Where the stream is: a restart resumes after it, so no signal is missed. */
let cursor: string | undefined;

/** Calls `listener` for each signal of these kinds until the returned function is called. */
export function onSignal(kinds: SignalKind[], listener: (signal: Signal) => void): () => void {
  const filtered = (signal: Signal) => kinds.includes(signal.kind) && listener(signal);
  listeners.add(filtered);
  return () => void listeners.delete(filtered);
}

export function startLive(): void {
  if (controller) return;
  const mine = (controller = new AbortController());
  const setState = (next: StreamState | 'off') => {
    streamState.value = next;
    document.body.dataset.stream = next;
  };
  client.events
    .stream({
      signal: mine.signal,
      since: cursor,
      onCursor: (next) => {
        if (controller === mine) cursor = next;
      },
      onStateChange: (next) => controller === mine && setState(next),
      onSignal: async (signal) => {
        document.body.dataset.lastSignal = signal.kind;
        for (const listener of listeners) listener(signal);
        await cache.onSignal(signal);
      },
      onResync: () => cache.resync(),
    })
    .catch(async (error) => {
      if (controller !== mine) return;
      controller = undefined;
      setState('off');
      // Signed out meanwhile: the app shows the sign-in screen.
      if (isProblem(error) && error.status === 401) await refreshSession();
    });
}

/** `resume`: the next start continues where this one stopped (else it starts from now on). */
export function stopLive(resume = false): void {
  if (!resume) cursor = undefined;
  controller?.abort();
  controller = undefined;
  streamState.value = 'off';
  document.body.dataset.stream = 'off';
}

// Back online: the stream starts again now instead of after its backoff (up to 30 s).
on('reconnected', () => {
  if (!controller) return;
  stopLive(true);
  startLive();
});
