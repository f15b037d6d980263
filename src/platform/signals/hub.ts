import type { Signal } from './catalogue.js';
import { advance, seen } from './feed.js';
import type { FeedItem, FeedPosition } from './feed.js';

/**
 * The streams one node holds, grouped by account, and how they are fed (PRODUCT §7,
 * docs/decisions/020-event-signals.md).
 *
 * The logs are the only queue: a wake-up says "account X has something new", or "the followers
 * of owner O have something new", and the streams concerned then read their feed (feed.ts)
 * after their own positions. So delivery is exactly once and in order per stream, a lost or
 * duplicated wake-up costs at most one read, and a connection holds no more than its socket
 * buffer: when that passes `bufferBytes` the stream stops reading (its position stays put)
 * until the client drains it, and a client that does not drain within `stallMs` is dropped;
 * it resumes from its last received id.
 *
 * A card change is published once, naming its owner, and never written per follower
 * (decision 220): each node keeps an index from an owner to the accounts with streams here
 * that follow them, and wakes just those. The index only decides whom to wake; what a stream
 * receives is always read from the database, which applies who receives which card at that
 * moment, so a follower revoked a millisecond earlier is never sent the change.
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

interface Group {
  streams: Set<Stream>;
  running: boolean;
  again: boolean;
  /** The owners this account follows, in the index; read before the group's first delivery. */
  following?: Set<string>;
  /** Read the owners again before the next delivery (the account's subscriptions changed). */
  refollow: boolean;
  /**
   * The account's own log may hold something not yet read: set by its own wake-ups (and on
   * open), cleared by a read that got all of it. A card edit alone wakes the group without it,
   * so a thousand followers woken by one edit read only the card-change log.
   */
  ownDirty: boolean;
}

/** Own signals after which the account may follow other owners than before. */
const FOLLOWING_CHANGED = new Set(['contacts.changed', 'account.changed']);

export type Admission = 'open' | 'replace' | 'full';

/** Signals read from the log per query. */
const PAGE = 200;
const RETRY_AFTER_ERROR_MS = 1000;

export function createStreamHub(deps: HubDeps) {
  const { limits } = deps;
  const groups = new Map<string, Group>();
  /** Owner → the accounts with streams on this node that follow them. */
  const followers = new Map<string, Set<string>>();
  let nextId = 1;
  let count = 0;
  let peakBuffered = 0;
  let dropped = 0;
  let heartbeat: NodeJS.Timeout | undefined;

  function groupOf(accountId: string): Group {
    let group = groups.get(accountId);
    if (!group) {
      group = { streams: new Set(), running: false, again: false, refollow: true, ownDirty: true };
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
    if (group && group.streams.size === 0 && !group.running) forget(stream.accountId, group);
  }

  function index(accountId: string, group: Group, owners: Set<string>): void {
    for (const owner of group.following ?? []) if (!owners.has(owner)) unfollow(owner, accountId);
    for (const owner of owners) {
      let accounts = followers.get(owner);
      if (!accounts) followers.set(owner, (accounts = new Set()));
      accounts.add(accountId);
    }
    group.following = owners;
  }

  function unfollow(owner: string, accountId: string): void {
    const accounts = followers.get(owner);
    accounts?.delete(accountId);
    if (accounts?.size === 0) followers.delete(owner);
  }

  /** The account has no stream left here: out of the map and the index. */
  function forget(accountId: string, group: Group): void {
    if (groups.get(accountId) === group) groups.delete(accountId);
    for (const owner of group.following ?? []) unfollow(owner, accountId);
    group.following = undefined;
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

  /** Writes the items this stream has not had yet, until its buffer is full. */
  function deliver(stream: Stream, items: FeedItem[]): void {
    if (deps.now() >= stream.expiresAt) {
      close(stream, 'expired');
      return;
    }
    for (const item of items) {
      if (stream.closed) return;
      if (seen(stream.position, item)) continue;
      if (stream.sink.buffered() >= limits.bufferBytes) {
        stall(stream);
        return;
      }
      const position = advance(stream.position, item);
      stream.sink.send(deps.toSignal(stream.accountId, item, position));
      stream.position = position;
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

  /**
   * One catch-up: read after the lowest position among the streams that can take more. The
   * owners the account follows are indexed before the read, so a change committed after the
   * index was read wakes this group, and one committed before it is in the read.
   */
  async function feed(accountId: string, group: Group): Promise<void> {
    for (;;) {
      if (group.refollow) {
        group.refollow = false;
        const owners = new Set(await deps.following(accountId));
        if (group.streams.size === 0) return;
        index(accountId, group, owners);
      }
      const ready = [...group.streams].filter((s) => !s.stalled);
      if (ready.length === 0) return;
      const from = { own: Math.min(...ready.map((s) => s.position.own)), card: Math.min(...ready.map((s) => s.position.card)) };
      const own = group.ownDirty;
      group.ownDirty = false;
      const items = await deps.read(accountId, from, PAGE, { own });
      // A full page may leave own signals unread: read the own log again next time.
      if (items.length >= PAGE) group.ownDirty ||= own;
      if (items.length === 0) return;
      // A revocation, or the account's deletion, ends streams before anything more reaches them.
      if (items.some((item) => item.kind === 'sessions.changed' || item.kind === 'account.changed')) await closeDeadSessions(group);
      // Subscriptions changed: whom the account follows is read again, then the feed once more.
      if (items.some((item) => item.source === 'own' && FOLLOWING_CHANGED.has(item.kind))) {
        group.refollow = true;
        group.again = true;
      }
      for (const stream of ready) if (!stream.closed) deliver(stream, items);
      if (items.length < PAGE) return;
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
      if (group.streams.size === 0) forget(accountId, group);
    }
  }

  /**
   * Wake-ups arrive right after a commit, before the committing request has answered: the reads
   * they cause start on the next turn of the event loop, so an edit's answer never waits behind
   * its followers' deliveries (on SQLite the reads would otherwise run first, synchronously).
   */
  const waking = new Map<string, boolean>();
  /** The account has something new: in its own log (`own`, the default), or only a card edit. */
  function wake(accountId: string, own = true): void {
    if (waking.size === 0) setImmediate(wakeWaiting);
    waking.set(accountId, own || waking.get(accountId) === true);
  }
  function wakeWaiting(): void {
    const accounts = [...waking];
    waking.clear();
    for (const [accountId, own] of accounts) {
      const group = groups.get(accountId);
      if (!group || group.streams.size === 0) continue;
      if (own) group.ownDirty = true;
      void pump(accountId, group);
    }
  }

  /** A card of this owner changed: every account here that follows them reads its feed. */
  function wakeFollowers(ownerId: string): void {
    for (const accountId of followers.get(ownerId) ?? []) wake(accountId, false);
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
      const stream: Stream = { ...input, id: nextId++, position: { ...input.after }, stalled: false, closed: false };
      group.streams.add(stream);
      count++;
      // A new stream may start behind the others: the group reads its own log again.
      group.ownDirty = true;
      void pump(input.accountId, group);
      return stream;
    },

    /** The transport closed (client went away). */
    remove,
    close,
    wake,
    wakeFollowers,

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
      return { streams: count, accounts: groups.size, followedOwners: followers.size, stalled, peakBufferedBytes: peakBuffered, droppedSlowConsumers: dropped };
    },
  };
}

export type StreamHub = ReturnType<typeof createStreamHub>;
