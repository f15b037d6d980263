import { defineModule } from '../../platform/module.js';
import { OPERATIONS } from './operations.js';
import { meQueries } from './queries.js';
import { meRoutes } from './routes.js';
import { MeSchema } from './schemas.js';
import { createMeService } from './service.js';
import type { MeService } from './service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    me: MeService;
  }
}

/** GET/PATCH /me: the caller's identity (PRODUCT §2). */
export const meModule = defineModule({
  name: 'me',
  operations: OPERATIONS,
  schemas: [MeSchema],
  tags: [{ name: 'identity', description: '/me and identity fields' }],
  build({ store }) {
    const me = createMeService({ db: store.repository({ me: meQueries }) });
    return { provides: { me }, routes: (app) => meRoutes(app, { me }) };
  },
});
