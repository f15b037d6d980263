import type { FollowerIndex } from './follower-index.js';
import type { HubDeps } from './hub-types.js';
import type { StreamDelivery } from './stream-delivery.js';
import type { Group, StreamRegistry } from './stream-registry.js';

/**
 * The reads that feed an account's streams: the logs are the only queue, so a wake-up only
 * starts a read of the account's feed (feed.ts) after its streams' own positions. Reads for one
 * account are serialised and repeated while more came, which makes delivery exactly once and
 * in order per stream, and a lost or duplicated wake-up cost at most one read
 * (docs/decisions/020-event-signals.md).
 */

/** Own signals after which the account may follow other owners than before. */
const FOLLOWING_CHANGED = new Set(['contacts.changed', 'account.changed']);

/** Signals read from the log per query. */
const PAGE = 200;
const RETRY_AFTER_ERROR_MS = 1000;

export interface CatchUpParts {
  registry: StreamRegistry;
  followers: FollowerIndex;
  delivery: StreamDelivery;
  /** Reads for the account again later (after an error). */
  wake(accountId: string): void;
}

export function createCatchUp(deps: Pick<HubDeps, 'read' | 'following' | 'isSessionLive' | 'now' | 'onError'>, parts: CatchUpParts) {
  const { registry, followers, delivery } = parts;

  /** A revoked or ended session's streams close before anything more is sent to them. */
  async function closeDeadSessions(group: Group): Promise<void> {
    const now = deps.now();
    const sessions = new Set([...group.streams].map((s) => s.sessionId));
    for (const sessionId of sessions) {
      if (await deps.isSessionLive(sessionId, now)) continue;
      for (const stream of [...group.streams]) if (stream.sessionId === sessionId) registry.close(stream, 'revoked');
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
        followers.follow(accountId, group.following ?? [], owners);
        group.following = owners;
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
      for (const stream of ready) if (!stream.closed) delivery.deliver(stream, items);
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
      setTimeout(() => parts.wake(accountId), RETRY_AFTER_ERROR_MS).unref();
    } finally {
      group.running = false;
      if (group.streams.size === 0) registry.forget(accountId, group);
    }
  }

  return { pump };
}

export type CatchUp = ReturnType<typeof createCatchUp>;
