import type { SignalRecord } from './log.js';
import type { Signal } from './catalogue.js';

/**
 * The streams one node holds, grouped by account, and how they are fed (PRODUCT §7,
 * docs/decisions/020-event-signals.md).
 *
 * The log is the only queue: a wake-up says "account X has something new", and the account's
 * streams then read the log after their own cursors. So delivery is exactly once and in
 * order per stream, a lost or duplicated wake-up costs at most one read, and a connection
 * holds no more than its socket buffer: when that passes `bufferBytes` the stream stops
 * reading the log (its cursor stays put) until the client drains it, and a client that does
 * not drain within `stallMs` is dropped; it resumes from its last received id.
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
  read(accountId: string, afterSeq: number, limit: number): Promise<SignalRecord[]>;
  isSessionLive(sessionId: string, now: number): Promise<boolean>;
  toSignal(record: SignalRecord): Signal;
  now(): number;
  limits: HubLimits;
  onError(error: unknown): void;
}

export interface StreamInput {
  accountId: string;
  sessionId: string;
  /** The last sequence number the client has; delivery starts after it. */
  afterSeq: number;
  /** When the credential that opened the stream stops being valid. */
  expiresAt: number;
  sink: StreamSink;
}

export interface Stream extends StreamInput {
  readonly id: number;
  cursor: number;
  stalled: boolean;
  /** When its buffer filled, on the injected clock; the sweep drops it after stallMs. */
  stalledAt?: number;
  closed: boolean;
}

interface Group {
  streams: Set<Stream>;
  running: boolean;
  again: boolean;
}

export type Admission = 'open' | 'replace' | 'full';

/** Signals read from the log per query. */
const PAGE = 200;
const RETRY_AFTER_ERROR_MS = 1000;

export function createStreamHub(deps: HubDeps) {
  const { limits } = deps;
  const groups = new Map<string, Group>();
  let nextId = 1;
  let count = 0;
  let peakBuffered = 0;
  let dropped = 0;
  let heartbeat: NodeJS.Timeout | undefined;

  function groupOf(accountId: string): Group {
    let group = groups.get(accountId);
    if (!group) {
      group = { streams: new Set(), running: false, again: false };
      groups.set(accountId, group);
    }
    return group;
  }

  function remove(stream: Stream): void {
    if (stream.closed) return;
    stream.closed = true;
    count--;
    const group = groups.get(stream.accountId);
    group?.streams.delete(stream);
    if (group && group.streams.size === 0 && !group.running) groups.delete(stream.accountId);
  }

  function close(stream: Stream, reason: CloseReason): void {
    if (stream.closed) return;
    remove(stream);
    if (reason === 'slow_consumer') dropped++;
    try {
      stream.sink.close(reason);
    } catch (error) {
      deps.onError(error);
    }
  }

  function stall(stream: Stream): void {
    if (stream.stalled) return;
    stream.stalled = true;
    stream.stalledAt = deps.now();
    stream.sink.onDrain(() => resume(stream));
  }

  function resume(stream: Stream): void {
    if (stream.closed || !stream.stalled) return;
    stream.stalled = false;
    stream.stalledAt = undefined;
    wake(stream.accountId);
  }

  /** Writes the rows this stream has not had yet, until its buffer is full. */
  function deliver(stream: Stream, rows: SignalRecord[]): void {
    if (deps.now() >= stream.expiresAt) {
      close(stream, 'expired');
      return;
    }
    for (const row of rows) {
      if (stream.closed) return;
      if (row.seq <= stream.cursor) continue;
      if (stream.sink.buffered() >= limits.bufferBytes) {
        stall(stream);
        return;
      }
      stream.sink.send(deps.toSignal(row));
      stream.cursor = row.seq;
      const buffered = stream.sink.buffered();
      if (buffered > peakBuffered) peakBuffered = buffered;
    }
  }

  /** A revoked or ended session's streams close before anything more is sent to them. */
  async function closeDeadSessions(group: Group): Promise<void> {
    const now = deps.now();
    const sessions = new Set([...group.streams].map((s) => s.sessionId));
    for (const sessionId of sessions) {
      if (await deps.isSessionLive(sessionId, now)) continue;
      for (const stream of [...group.streams]) if (stream.sessionId === sessionId) close(stream, 'revoked');
    }
  }

  /** One catch-up: read after the lowest cursor among the streams that can take more. */
  async function feed(accountId: string, group: Group): Promise<void> {
    for (;;) {
      const ready = [...group.streams].filter((s) => !s.stalled);
      if (ready.length === 0) return;
      const from = Math.min(...ready.map((s) => s.cursor));
      const rows = await deps.read(accountId, from, PAGE);
      if (rows.length === 0) return;
      // A revocation, or the account's deletion, ends streams before anything more reaches them.
      if (rows.some((row) => row.kind === 'sessions.changed' || row.kind === 'account.changed')) await closeDeadSessions(group);
      for (const stream of ready) if (!stream.closed) deliver(stream, rows);
      if (rows.length < PAGE) return;
    }
  }

  /** Wake-ups for one account are serialised: one read at a time, repeated if more came. */
  async function pump(accountId: string, group: Group): Promise<void> {
    if (group.running) {
      group.again = true;
      return;
    }
    group.running = true;
    try {
      do {
        group.again = false;
        await feed(accountId, group);
      } while (group.again && group.streams.size > 0);
    } catch (error) {
      deps.onError(error);
      setTimeout(() => wake(accountId), RETRY_AFTER_ERROR_MS).unref();
    } finally {
      group.running = false;
      if (group.streams.size === 0 && groups.get(accountId) === group) groups.delete(accountId);
    }
  }

  function wake(accountId: string): void {
    const group = groups.get(accountId);
    if (group && group.streams.size > 0) void pump(accountId, group);
  }

  function sweep(): void {
    const now = deps.now();
    for (const group of groups.values()) {
      for (const stream of [...group.streams]) {
        if (now >= stream.expiresAt) close(stream, 'expired');
        else if (!stream.stalled) stream.sink.heartbeat();
        // Stalled past the limit, by the injected clock: drained meanwhile resumes, else dropped.
        else if (now - (stream.stalledAt ?? now) >= limits.stallMs) {
          if (stream.sink.buffered() < limits.bufferBytes) resume(stream);
          else close(stream, 'slow_consumer');
        }
      }
    }
  }

  return {
    /** May this session open one more stream of this account on this node? */
    admission(accountId: string, sessionId: string): Admission {
      const group = groups.get(accountId);
      if (!group || group.streams.size < limits.perAccount) return 'open';
      for (const stream of group.streams) if (stream.sessionId === sessionId) return 'replace';
      return 'full';
    },

    /**
     * Registers a stream and starts its catch-up. At the account's limit, a device that already
     * holds a stream replaces its oldest one (a reconnect after a connection the server has not
     * yet seen die); otherwise undefined.
     */
    open(input: StreamInput): Stream | undefined {
      const group = groupOf(input.accountId);
      if (group.streams.size >= limits.perAccount) {
        const oldest = [...group.streams].find((s) => s.sessionId === input.sessionId);
        if (!oldest) return undefined;
        close(oldest, 'replaced');
      }
      const stream: Stream = { ...input, id: nextId++, cursor: input.afterSeq, stalled: false, closed: false };
      group.streams.add(stream);
      count++;
      void pump(input.accountId, group);
      return stream;
    },

    /** The transport closed (client went away). */
    remove,
    close,
    wake,

    /** Every account, e.g. after the cross-node listener reconnected and may have missed some. */
    wakeAll(): void {
      for (const accountId of groups.keys()) wake(accountId);
    },

    start(): void {
      heartbeat ??= setInterval(sweep, limits.heartbeatMs);
      heartbeat.unref();
    },

    /** Closes every stream (server shutdown): clients reconnect to another node and resume. */
    stop(): void {
      clearInterval(heartbeat);
      heartbeat = undefined;
      for (const group of [...groups.values()]) for (const stream of [...group.streams]) close(stream, 'shutdown');
    },

    stats() {
      let stalled = 0;
      for (const group of groups.values()) for (const stream of group.streams) if (stream.stalled) stalled++;
      return { streams: count, accounts: groups.size, stalled, peakBufferedBytes: peakBuffered, droppedSlowConsumers: dropped };
    },
  };
}

export type StreamHub = ReturnType<typeof createStreamHub>;
