import { defineModule } from '../../platform/module.js';
import { photos as photosMigration } from './migrations/025-photos.js';
import { photoQueries } from './queries.js';
import { photoRoutes } from './routes.js';
import { ExportedPhoto, PhotoSchema } from './schemas.js';
import { createPhotoService } from './service.js';
import type { PhotoService } from './service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    photos: PhotoService;
  }
}

/**
 * Photos (PRODUCT §2): the server's re-encodings of uploads. Built before fields (a photo field
 * names one, and goes with it) and the cards (a vCard carries one); who may fetch a photo is
 * decided where cards are (the card-photos module, after contacts).
 */
export const photosModule = defineModule({
  name: 'photos',
  migrations: { '025-photos': photosMigration },
  schemas: [PhotoSchema],
  build({ clock, store, accountData }) {
    const photos = createPhotoService({ db: store.repository({ photos: photoQueries }), clock });
    accountData.declare('photos', {
      tables: { photos: { exported: 'photos' } },
      sections: [{ name: 'photos', description: 'Your photos, each size as base64 JPEG', kind: 'list', item: ExportedPhoto, pages: photos.exportPages }],
      erase: photos.erase,
    });
    return { provides: { photos }, routes: (app) => photoRoutes(app, { photos }) };
  },
});
