import { createRegionContext } from './context.js';
import type { RegionDeps } from './context.js';
import { createFollowing } from './following.js';
import { createIncoming } from './incoming.js';
import { createOutboxHooks } from './outbox-hooks.js';
import { createOutgoing } from './outgoing.js';
import { createSilence } from './silence.js';

export type { PeerCall, RegionDeps, RegionRepo } from './context.js';
export { SILENCE_BOUND_MS } from './silence.js';

/**
 * The regions of one operator as a closed federation (PRODUCT §10, decision 352): following
 * someone of another region (following.ts), what this region tells the others through an
 * outbox written in the transaction of each change (outbox-hooks.ts, outgoing.ts), what it does
 * with what they tell it (incoming.ts), and when each was last heard from (silence.ts), over what
 * they share (context.ts).
 */
export function createRegionService(deps: RegionDeps) {
  const ctx = createRegionContext(deps);
  const incoming = createIncoming(ctx);
  const silence = createSilence(ctx);
  return {
    ...createOutgoing(ctx),
    apply: incoming.apply,
    ...silence,
    ...createFollowing(ctx, incoming, silence.justHeard),
    ...createOutboxHooks(ctx),
  };
}

export type RegionService = ReturnType<typeof createRegionService>;
