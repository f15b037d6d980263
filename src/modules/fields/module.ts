import { ref } from '../../platform/http/schemas.js';
import { defineModule } from '../../platform/module.js';
import { catalogRoutes } from './catalog-routes.js';
import { createFieldCatalog } from './catalog.js';
import type { FieldCatalog } from './catalog.js';
import { identityFields } from './migrations/003-identity-fields.js';
import { fieldQueries } from './queries.js';
import { fieldRoutes } from './routes.js';
import { AddressCountryRule, FieldDetails, FieldSchema, FieldType, FieldValidation, PhoneCountryRule, SocialPlatform } from './schemas.js';
import { createFieldService } from './service.js';
import type { FieldService } from './service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    fields: FieldService;
    fieldCatalog: FieldCatalog;
  }
}

/** Identity fields (/me/fields) and the public field catalog (/field-types), PRODUCT §2. */
export const fieldsModule = defineModule({
  name: 'fields',
  migrations: { '003-identity-fields': identityFields },
  schemas: [PhoneCountryRule, AddressCountryRule, SocialPlatform, FieldType, FieldDetails, FieldValidation, FieldSchema],
  build({ clock, store, accountData }, { photos }) {
    const fieldCatalog = createFieldCatalog();
    const fields = createFieldService({ db: store.repository({ fields: fieldQueries }), clock, catalog: fieldCatalog, photos });
    accountData.declare('fields', {
      tables: { fields: { exported: 'fields' } },
      sections: [{ name: 'fields', description: 'Your identity fields, as GET /me/fields shows them', kind: 'list', item: ref(FieldSchema), pages: fields.exportPages }],
      erase: fields.erase,
    });
    return {
      provides: { fields, fieldCatalog },
      routes: async (app) => {
        await catalogRoutes(app, { catalog: fieldCatalog, now: clock.now });
        await fieldRoutes(app, { fields });
      },
    };
  },
});
