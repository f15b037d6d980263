import { createCatchUp } from './catch-up.js';
import { createFollowerIndex } from './follower-index.js';
import type { HubDeps, Stream, StreamInput } from './hub-types.js';
import { createStreamDelivery } from './stream-delivery.js';
import { createStreamRegistry } from './stream-registry.js';
import { createStreamSweep } from './stream-sweep.js';
import { createWakeUps } from './wake-ups.js';

export type { Admission, CloseReason, HubDeps, HubLimits, Stream, StreamInput, StreamSink } from './hub-types.js';

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
 *
 * The parts, each in its own file: stream-registry (the groups and their limit),
 * follower-index (owner → following accounts), catch-up (the reads), stream-delivery (writing
 * and backpressure), wake-ups (whom a change wakes, and when), stream-sweep (heartbeat, expiry,
 * slow consumers). Wake-ups start catch-ups, and a catch-up or a drained stream asks for a
 * wake-up again, hence the late-bound `wake` below.
 */
export function createStreamHub(deps: HubDeps) {
  const wake = (accountId: string) => wakeUps.wake(accountId);
  const followers = createFollowerIndex();
  const registry = createStreamRegistry(deps, followers);
  const delivery = createStreamDelivery(deps, { close: registry.close, wake });
  const catchUp = createCatchUp(deps, { registry, followers, delivery, wake });
  const wakeUps = createWakeUps({ registry, followers, pump: catchUp.pump });
  const sweep = createStreamSweep(deps, registry, delivery);

  return {
    /** May this session open one more stream of this account on this node? */
    admission: registry.admission,

    /**
     * Registers a stream and starts its catch-up. At the account's limit, a device that already
     * holds a stream replaces its oldest one (a reconnect after a connection the server has not
     * yet seen die); otherwise undefined.
     */
    open(input: StreamInput): Stream | undefined {
      const opened = registry.open(input);
      if (!opened) return undefined;
      void catchUp.pump(input.accountId, opened.group);
      return opened.stream;
    },

    /** The transport closed (client went away). */
    remove: registry.remove,
    close: registry.close,
    wake: wakeUps.wake,
    wakeFollowers: wakeUps.wakeFollowers,
    wakeAll: wakeUps.wakeAll,
    start: sweep.start,

    /** Closes every stream (server shutdown): clients reconnect to another node and resume. */
    stop(): void {
      sweep.stop();
      registry.closeAll('shutdown');
    },

    stats() {
      const { streams, accounts, stalled, droppedSlowConsumers } = registry.counts();
      return { streams, accounts, followedOwners: followers.size, stalled, peakBufferedBytes: delivery.peakBuffered(), droppedSlowConsumers };
    },
  };
}

export type StreamHub = ReturnType<typeof createStreamHub>;
