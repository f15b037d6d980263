import type { Clock } from '../../platform/clock.js';
import { noneMatchHolds } from '../../platform/etag.js';
import type { Conditional } from '../../platform/etag.js';
import { createPublicCardCache } from './public-card-cache.js';
import type { ProfileRepository } from './views.js';

/** The public card of an account (its public profile's card), as anyone may read it without signing in. */
export function createPublicCards(deps: { db: ProfileRepository; clock: Clock }) {
  const { db, clock } = deps;
  const publicCards = createPublicCardCache({ now: clock.now });
  return {
    /**
     * The card of the account's public profile (conditional as preview); undefined when there is
     * none. Read through this node's cache of public cards (public-card-cache.ts): an entry is
     * only ever what the rule answered, forgotten on any change of its owner.
     */
    async publicCard(canonicalUsername: string, ifNoneMatch?: string): Promise<(Conditional & { accountId: string }) | undefined> {
      const cached = publicCards.get(canonicalUsername);
      if (cached) return noneMatchHolds(ifNoneMatch, cached.etag) ? { accountId: cached.accountId, etag: cached.etag } : cached;
      const mark = publicCards.mark();
      const card = await db.direct.profiles.publicCard(canonicalUsername);
      if (!card) return undefined;
      const read = { accountId: card.account_id, json: card.card_json, etag: card.card_etag };
      publicCards.put(canonicalUsername, read, mark);
      return noneMatchHolds(ifNoneMatch, read.etag) ? { accountId: read.accountId, etag: read.etag } : read;
    },

    /** The stored JSON of the account's public card, if it has one anyone may see now. */
    publicCardJsonOf: async (accountId: string): Promise<string | undefined> => (await db.direct.profiles.publicCardOf(accountId))?.card_json ?? undefined,

    /** Every node hears of every committed signal (wiring.ts): a public card of its account may have changed. */
    forgetPublicCard: (accountId: string): void => publicCards.forget(accountId),
    /** Signals may have been missed (a reconnected listener): no public card held can be trusted. */
    forgetPublicCards: (): void => publicCards.forgetAll(),
  };
}
