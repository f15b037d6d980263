// Signals (PRODUCT §7): GET /events/stream read with fetch streaming (EventSource cannot send
// DPoP headers), resumed with Last-Event-ID after every interruption, and GET /events polling
// when streaming does not work here (a buffering proxy, no streamed bodies).
import type { Operation, ResponseBody, Signal } from './api.js';
import { isProblem } from './errors.js';
import { SIGNAL_RESOURCES } from './generated/signal-kinds.js';
import type { Transport } from './http.js';
import { SseParser } from './sse.js';

/** One page of `GET /events`: signals, oldest first, and the cursor after them. */
export type EventPage = ResponseBody<Operation<'/events', 'GET'>>;
/** Where the stream is: connecting, live (`streaming`), polling instead, or waiting to reconnect. */
export type StreamState = 'connecting' | 'streaming' | 'polling' | 'waiting';

/** How to follow the signals: what to call, where to resume, when to stop. */
export interface StreamOptions {
  /** Called once per signal, in order; the next waits for it. Pull `signal.resource` for the new state. */
  onSignal: (signal: Signal) => void | Promise<void>;
  /** Stops the stream; the promise returned by stream() then resolves. */
  signal?: AbortSignal;
  /** Resume after this cursor (one saved from onCursor). Without it: from now on. */
  since?: string;
  /** The cursor after each signal (and where a new stream starts): save it to resume later. */
  onCursor?: (cursor: string) => void | Promise<void>;
  /**
   * The cursor is past the retention (410 cursor_expired) or not valid: signals were missed, so
   * pull your resources again. The stream then continues from now on.
   */
  onResync?: () => void | Promise<void>;
  /** Told when the state changes (`streaming` once live), e.g. for a "live" mark. */
  onStateChange?: (state: StreamState) => void;
  /** `auto` (default) streams and falls back to polling; `stream` or `poll` force one. */
  mode?: 'auto' | 'stream' | 'poll';
  /** Between polls when nothing is waiting. Default 5 s. */
  pollIntervalMs?: number;
  /** Reconnect delay after a stream ends; default: the server's `retry:` hint (2 s), doubled on failures up to 30 s. */
  reconnectDelayMs?: number;
  /** No byte (not even a heartbeat, sent every 15 s) for this long: the connection is dead. Default 45 s. */
  idleTimeoutMs?: number;
  /** Consecutive stream failures before `auto` polls instead. Default 3. */
  fallbackAfterFailures?: number;
  /** While polling in `auto`, try the stream again after this long. Default 5 min. */
  streamRetryAfterMs?: number;
}

const MAX_RECONNECT_MS = 30_000;
const PAGE_LIMIT = 200;

class StreamUnsupported extends Error {}
/** An error thrown by the caller's own callback: it ends the stream, unlike transport trouble. */
class CallbackFailed {
  constructor(readonly error: unknown) {}
}
async function callback(run: () => void | Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    throw new CallbackFailed(error);
  }
}

export function createEvents(transport: Transport) {
  const list = async (query: { since?: string; limit?: number } = {}, signal?: AbortSignal): Promise<EventPage> =>
    (await transport.send<EventPage>({ method: 'GET', path: '/events', query, signal })).data;

  async function stream(options: StreamOptions): Promise<void> {
    const { signal } = options;
    const mode = options.mode ?? 'auto';
    const pollIntervalMs = options.pollIntervalMs ?? 5_000;
    const fallbackAfter = options.fallbackAfterFailures ?? 3;
    const pollRoundsBeforeStream = Math.max(1, Math.ceil((options.streamRetryAfterMs ?? 300_000) / pollIntervalMs));
    let cursor = options.since;
    let serverRetryMs = 2_000;
    let failures = 0;
    let pollRounds = mode === 'poll' ? Infinity : 0; // > 0: polling (auto counts down to the next stream try)
    let state: StreamState | undefined;
    const setState = (next: StreamState) => {
      if (next !== state) options.onStateChange?.((state = next));
    };
    const advance = async (next: string) => {
      if (next === cursor) return;
      cursor = next;
      await callback(() => options.onCursor?.(next));
    };
    const wait = (ms: number) => transport.config.sleep(ms, signal);

    async function deliver(signal: Signal): Promise<void> {
      await callback(() => options.onSignal(signal));
      await advance(signal.id);
    }

    /** One stream connection, read until it ends; throws when it cannot open or breaks. */
    async function streamOnce(): Promise<void> {
      setState('connecting');
      const connection = new AbortController();
      const abort = () => connection.abort(signal?.reason);
      signal?.addEventListener('abort', abort, { once: true });
      let idle: ReturnType<typeof setTimeout> | undefined;
      const arm = () => {
        clearTimeout(idle);
        idle = setTimeout(() => connection.abort(new Error('the event stream went silent')), options.idleTimeoutMs ?? 45_000);
      };
      try {
        arm();
        const response = await transport.exchange({
          method: 'GET',
          path: '/events/stream',
          headers: { accept: 'text/event-stream', ...(cursor ? { 'last-event-id': cursor } : {}) },
          signal: connection.signal,
        });
        if (!response.body || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
          await response.body?.cancel();
          throw new StreamUnsupported('the answer is not a readable event stream');
        }
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        const parser = new SseParser(cursor);
        let received = false;
        try {
          for (;;) {
            const { done, value } = await reader.read();
            // Closed before even the opening block: something in between is not passing it on.
            if (done && !received) throw new Error('the event stream closed before its first block');
            if (done) return;
            arm();
            for (const message of parser.push(decoder.decode(value, { stream: true }))) {
              if (message.kind === 'retry') serverRetryMs = message.ms;
              else if (message.kind === 'comment') continue;
              else {
                received = true;
                failures = 0;
                setState('streaming');
                if (message.kind === 'id') await advance(message.id);
                else {
                  const parsed = parseSignal(message.data);
                  // A kind this client does not know is passed over, as the catalogue asks.
                  if (parsed) await deliver(parsed);
                  else await advance(message.id);
                }
              }
            }
          }
        } finally {
          await reader.cancel().catch(() => undefined);
        }
      } finally {
        clearTimeout(idle);
        signal?.removeEventListener('abort', abort);
      }
    }

    /** Polls until nothing more is waiting; `skip` moves to the newest position without delivering. */
    async function pollOnce(skip: boolean): Promise<void> {
      setState('polling');
      for (;;) {
        const page = await list({ since: cursor, limit: PAGE_LIMIT }, signal);
        if (!skip) {
          for (const item of page.data) {
            const known = knownSignal(item);
            if (known) await deliver(known);
            else await advance(item.id);
          }
        }
        await advance(page.next_cursor);
        if (!page.has_more) return;
      }
    }

    while (!signal?.aborted) {
      try {
        if (pollRounds > 0) {
          // Without a cursor, start from now on, as a new stream does.
          await pollOnce(cursor === undefined);
          pollRounds--;
          failures = 0;
          await wait(pollIntervalMs);
          continue;
        }
        await streamOnce();
        // The server ended the stream (token expiry, another stream replaced it, shutdown): resume.
        setState('waiting');
        await wait(options.reconnectDelayMs ?? serverRetryMs);
      } catch (error) {
        if (signal?.aborted) break;
        if (error instanceof CallbackFailed) throw error.error;
        if (isProblem(error) && (error.code === 'cursor_expired' || error.code === 'invalid_cursor')) {
          cursor = undefined;
          await options.onResync?.(); // a throw here ends the stream, as from any callback
          continue;
        }
        // No session any more, or not allowed: nothing a retry can fix.
        if (isProblem(error) && (error.status === 401 || error.status === 403)) throw error;
        const unsupported = error instanceof StreamUnsupported || (isProblem(error) && (error.status === 404 || error.status === 405));
        if (mode === 'stream' && unsupported) throw error;
        if (pollRounds === 0) failures++;
        if (mode === 'auto' && pollRounds === 0 && (unsupported || failures >= fallbackAfter)) {
          pollRounds = pollRoundsBeforeStream;
          failures = 0;
          continue;
        }
        // Anything else (network, a broken or silent stream, 5xx, limits) is worth another try.
        setState('waiting');
        const base = options.reconnectDelayMs ?? serverRetryMs;
        await wait(Math.min(MAX_RECONNECT_MS, base * 2 ** Math.max(0, failures - 1))).catch(() => undefined);
      }
    }
  }

  return {
    /** One page of signals after `since` (polling); without `since`, every retained signal. */
    list,
    /** Follows the signals live until `options.signal` aborts (then resolves). */
    stream,
  };
}

/** The `data:` of a signal event of a known kind; anything else is passed over. */
function parseSignal(data: string): Signal | undefined {
  try {
    return knownSignal(JSON.parse(data));
  } catch {
    return undefined;
  }
}

/** A signal of a kind in the catalogue this client was built with, or undefined. */
export function knownSignal(value: unknown): Signal | undefined {
  const candidate = value as { id?: unknown; kind?: unknown; resource?: unknown } | null;
  if (!candidate || typeof candidate.id !== 'string' || typeof candidate.kind !== 'string' || typeof candidate.resource !== 'string') return undefined;
  return Object.hasOwn(SIGNAL_RESOURCES, candidate.kind) ? (candidate as Signal) : undefined;
}
