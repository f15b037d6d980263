import { defineModule } from '../../platform/module.js';
import { webAppRoutes } from './routes.js';

/** The web app (web/, built into web/dist) at /; its GET /* answers only what no other route does. */
export const webAppModule = defineModule({
  name: 'web-app',
  build: () => ({ rootRoutes: (app) => webAppRoutes(app) }),
});
