import { defineModule } from '../../platform/module.js';
import { cardPhotoRoutes } from './routes.js';

/**
 * The photos cards show, served to their audience (PRODUCT §2): after contacts and profiles,
 * whose audience rules decide, and photos, which keeps the bytes. It owns no table.
 */
export const cardPhotosModule = defineModule({
  name: 'card-photos',
  build(_platform, { photos, profiles, contacts }) {
    return { routes: (app) => cardPhotoRoutes(app, { photos, publicCardJsonOf: profiles.publicCardJsonOf, cardFrom: contacts.cardFrom }) };
  },
});
