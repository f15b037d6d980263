import type { RegionContext } from './context.js';

/** How long a peer may be unheard before the copies of its cards are shown as not current. */
export const SILENCE_BOUND_MS = 10 * 60_000;

/**
 * When each peer was last heard from (decision 352): any signed request it sent or answer it
 * gave, a heartbeat at least once a minute; kept in region_peers for every node.
 */
export function createSilence(ctx: RegionContext) {
  const { db, clock, here } = ctx;
  /** As this node last read or saw it. */
  const heardAt = new Map<string, number>();

  return {
    /** Heard from just now, as this node saw (the answer to its own request). */
    justHeard(region: string): void {
      heardAt.set(region, Math.max(clock.now(), heardAt.get(region) ?? 0));
    },

    /** A peer was heard from (a signed request it sent, or an answer to ours): shared with every node. */
    async heard(region: string): Promise<void> {
      const now = clock.now();
      heardAt.set(region, Math.max(now, heardAt.get(region) ?? 0));
      await db.direct.nonces.heard(region, now);
    },

    /** This node's view of when peers were last heard from, read again (the sender's sweep). */
    async readHeard(): Promise<void> {
      for (const row of await db.direct.nonces.lastHeard()) heardAt.set(row.region, Math.max(row.heard_at, heardAt.get(row.region) ?? 0));
    },

    /**
     * Decision 352: a peer unheard for longer than the bound (it sends at least a heartbeat a
     * minute) is away, and the copies of its people's cards here may not be current: when it
     * was last heard from. Undefined for this region, an unknown one, or one heard of lately.
     */
    silentSince(region: string): number | undefined {
      if (region === here) return undefined;
      const last = heardAt.get(region);
      return last !== undefined && clock.now() - last > SILENCE_BOUND_MS ? last : undefined;
    },

  };
}
