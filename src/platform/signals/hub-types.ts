import type { Signal } from './catalogue.js';
import type { FeedItem, FeedPosition } from './feed.js';

/**
 * The shapes the stream hub's parts share: a stream and its transport, and what the hub is
 * built from. They live apart from hub.ts so that its parts (stream-registry, follower-index,
 * stream-delivery, catch-up, wake-ups, stream-sweep) can name them without importing the hub
 * that composes them; hub.ts re-exports them for its callers.
 */
export type CloseReason = 'revoked' | 'expired' | 'slow_consumer' | 'replaced' | 'shutdown';

/** One transport (SSE response, WebSocket). */
export interface StreamSink {
  send(signal: Signal): void;
  /** Keeps proxies from timing out an idle stream, and finds dead peers. */
  heartbeat(): void;
  /** Bytes written but not yet taken by the kernel. */
  buffered(): number;
  /** Calls back once, when the buffer has drained. */
  onDrain(listener: () => void): void;
  close(reason: CloseReason): void;
}

export interface HubLimits {
  /** Concurrent streams per account on this node. */
  perAccount: number;
  /** The most a stream may hold unsent before it stops reading the log. */
  bufferBytes: number;
  /** How long a full buffer may stay full before the stream is dropped. */
  stallMs: number;
  heartbeatMs: number;
}

export interface HubDeps {
  /**
   * The account's feed after a position, oldest first, at most `limit`. Without `own`, only the
   * card edits: nothing of the account's own log can have come since it was last read in full.
   */
  read(accountId: string, after: FeedPosition, limit: number, parts?: { own: boolean }): Promise<FeedItem[]>;
  /** The owners whose card changes may reach the account (its live subscriptions'). */
  following(accountId: string): Promise<string[]>;
  isSessionLive(sessionId: string, now: number): Promise<boolean>;
  /** The signal as the client receives it; its id is the position after it. */
  toSignal(accountId: string, item: FeedItem, position: FeedPosition): Signal;
  now(): number;
  limits: HubLimits;
  onError(error: unknown): void;
}

export interface StreamInput {
  accountId: string;
  sessionId: string;
  /** The position the client has; delivery starts after it. */
  after: FeedPosition;
  /** When the credential that opened the stream stops being valid. */
  expiresAt: number;
  sink: StreamSink;
}

export interface Stream extends StreamInput {
  readonly id: number;
  position: FeedPosition;
  stalled: boolean;
  /** When its buffer filled, on the injected clock; the sweep drops it after stallMs. */
  stalledAt?: number;
  closed: boolean;
}

export type Admission = 'open' | 'replace' | 'full';
