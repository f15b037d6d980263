import { defineModule } from '../../platform/module.js';
import { accountQueries } from '../../platform/store/accounts.js';
import { profiles as profilesMigration } from './migrations/006-profiles.js';
import { publicRoutes } from './public-routes.js';
import { exposureQueries, profileQueries } from './queries.js';
import { profileRoutes } from './routes.js';
import { CardSchema, ExportedProfile, ExposureSchema, ProfileSchema } from './schemas.js';
import { createProfileService } from './service.js';
import type { ProfileService } from './service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    profiles: ProfileService;
  }
}

/** Profiles, exposures, the card and the public card with its vCard (PRODUCT §3, §6). */
export const profilesModule = defineModule({
  name: 'profiles',
  migrations: { '006-profiles': profilesMigration },
  schemas: [CardSchema, ProfileSchema, ExposureSchema],
  tags: [
    { name: 'profiles', description: 'Profiles: which fields each audience sees, and the card it gets' },
    { name: 'public', description: 'Public cards and vCards: no sign-in' },
  ],
  build({ clock, store, accountData }, { fields, usernames, photos }) {
    const profiles = createProfileService({
      db: store.repository({ profiles: profileQueries, exposures: exposureQueries, accounts: accountQueries }),
      clock,
      ownsField: fields.owns,
      vcardPhotos: photos.vcardPhotos,
    });
    accountData.declare('profiles', {
      tables: { profiles: { exported: 'profiles' }, profile_exposures: { exported: 'profiles' } },
      sections: [{ name: 'profiles', description: 'Your profiles, the fields each shows, and the card its audience sees', kind: 'list', item: ExportedProfile, pages: profiles.exportPages }],
      erase: profiles.erase,
    });
    return {
      provides: { profiles },
      routes: async (app) => {
        await profileRoutes(app, { profiles });
        await publicRoutes(app, { profiles, canonicalOf: usernames.canonicalOf });
      },
    };
  },
});
