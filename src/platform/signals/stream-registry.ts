import type { FollowerIndex } from './follower-index.js';
import type { Admission, CloseReason, HubDeps, Stream, StreamInput } from './hub-types.js';

/**
 * The streams one node holds, grouped by account: how many an account may open here, and what
 * happens to the account's entry (and its place in the follower index) when its last stream
 * goes. The group also carries the state of the account's catch-up (catch-up.ts), so one entry
 * answers both "who is listening" and "is someone already reading for them".
 */
export interface Group {
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

export function createStreamRegistry(deps: Pick<HubDeps, 'limits' | 'onError'>, followers: FollowerIndex) {
  const { limits } = deps;
  const groups = new Map<string, Group>();
  let nextId = 1;
  let count = 0;
  let dropped = 0;

  function groupOf(accountId: string): Group {
    let group = groups.get(accountId);
    if (!group) {
      group = { streams: new Set(), running: false, again: false, refollow: true, ownDirty: true };
      groups.set(accountId, group);
    }
    return group;
  }

  /** The transport closed (client went away). */
  function remove(stream: Stream): void {
    if (stream.closed) return;
    stream.closed = true;
    count--;
    const group = groups.get(stream.accountId);
    group?.streams.delete(stream);
    if (group && group.streams.size === 0 && !group.running) forget(stream.accountId, group);
  }

  /** The account has no stream left here: out of the map and the index. */
  function forget(accountId: string, group: Group): void {
    if (groups.get(accountId) === group) groups.delete(accountId);
    followers.unfollowAll(accountId, group.following ?? []);
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

  return {
    groups: groups as ReadonlyMap<string, Group>,
    remove,
    forget,
    close,

    /** May this session open one more stream of this account on this node? */
    admission(accountId: string, sessionId: string): Admission {
      const group = groups.get(accountId);
      if (!group || group.streams.size < limits.perAccount) return 'open';
      for (const stream of group.streams) if (stream.sessionId === sessionId) return 'replace';
      return 'full';
    },

    /**
     * Registers a stream in its account's group. At the account's limit, a device that already
     * holds a stream replaces its oldest one (a reconnect after a connection the server has not
     * yet seen die); otherwise undefined. The caller starts the group's catch-up.
     */
    open(input: StreamInput): { stream: Stream; group: Group } | undefined {
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
      return { stream, group };
    },

    /** Every stream of every account, closed (server shutdown). */
    closeAll(reason: CloseReason): void {
      for (const group of [...groups.values()]) for (const stream of [...group.streams]) close(stream, reason);
    },

    counts() {
      let stalled = 0;
      for (const group of groups.values()) for (const stream of group.streams) if (stream.stalled) stalled++;
      return { streams: count, accounts: groups.size, stalled, droppedSlowConsumers: dropped };
    },
  };
}

export type StreamRegistry = ReturnType<typeof createStreamRegistry>;
