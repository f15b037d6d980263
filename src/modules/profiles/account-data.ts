import { keysetPages } from '../../platform/store/keyset.js';
import type { Tx } from '../../platform/store/store.js';
import { exposureView } from './views.js';
import type { ProfileRepository, ProfileViews } from './views.js';

/** The account's profiles in its export, and their end in its purge. */
export function createProfileAccountData(deps: { db: ProfileRepository; views: ProfileViews }) {
  const { db, views } = deps;
  return {
    /** Every profile with its exposures and the card its audience sees (the account export). */
    async *exportPages(accountId: string): AsyncIterable<object[]> {
      for await (const rows of keysetPages((after, limit) => db.direct.profiles.list(accountId, after, limit), (row) => row)) {
        const exported = [];
        for (const profile of await views.views(accountId, rows)) {
          const exposures = (await db.direct.exposures.list(profile.id)).map(exposureView);
          const card = await db.direct.profiles.cardJson(accountId, profile.id);
          exported.push({ ...profile, exposures, card: card === undefined ? null : JSON.parse(card) });
        }
        yield exported;
      }
    },
    /** The purge (PRODUCT §8): no hooks run, the subscriptions' side is ended by the contacts module first. */
    async erase(tx: Tx, accountId: string): Promise<void> {
      await db.in(tx).profiles.removeAll(accountId);
    },
  };
}
