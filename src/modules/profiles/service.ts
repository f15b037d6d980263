import type { Clock } from '../../platform/clock.js';
import type { Tx } from '../../platform/store/store.js';
import { createProfileAccountData } from './account-data.js';
import { createCardReads } from './card-reads.js';
import type { VcardPhotos } from './card-reads.js';
import { createCardRefresh } from './card-refresh.js';
import { createExposureService } from './exposures.js';
import { createProfileCrud } from './profile-crud.js';
import { createPublicCards } from './public-cards.js';
import { createProfileViews } from './views.js';
import type { ProfileRepository, SubscriberCounts } from './views.js';

export { PROFILE_LIMITS } from './views.js';
export type { ExposureView, ProfileInput, ProfileRemoval, ProfileView } from './views.js';

/**
 * Profiles (PRODUCT §3): named views of the owner's fields, assembled from their parts: the
 * profiles themselves (profile-crud.ts), what each shows (exposures.ts), keeping cards current
 * (card-refresh.ts), reading them and their vCards (card-reads.ts), the public card
 * (public-cards.ts) and the account's export and purge (account-data.ts).
 */
export function createProfileService(deps: {
  db: ProfileRepository;
  clock: Clock;
  /** Whether the account holds a field, in the caller's transaction (the fields service). */
  ownsField: (tx: Tx, accountId: string, fieldId: string) => Promise<boolean>;
  /** The 256 px JPEGs of photos by id (the photos service): a vCard carries its card's photo inline. */
  vcardPhotos: VcardPhotos;
  /** Subscribers per profile (subscriptions, once they exist); 0 otherwise. */
  subscriberCounts?: SubscriberCounts;
}) {
  const { db, clock } = deps;
  const views = createProfileViews({ db, subscriberCounts: deps.subscriberCounts });
  const cards = createCardRefresh({ db, clock });
  const refreshCards = cards.refreshCards;
  return {
    ...cards,
    ...createCardReads({ db, vcardPhotos: deps.vcardPhotos }),
    ...createProfileCrud({ db, clock, views, refreshCards }),
    ...createExposureService({ db, clock, views, refreshCards, ownsField: deps.ownsField }),
    ...createPublicCards({ db, clock }),
    ...createProfileAccountData({ db, views }),
    /** Where subscriber counts come from, once subscriptions exist. */
    countSubscribersWith: views.countSubscribersWith,
  };
}

export type ProfileService = ReturnType<typeof createProfileService>;
