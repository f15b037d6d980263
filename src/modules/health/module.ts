import { defineModule } from '../../platform/module.js';
import { healthRoutes } from './routes.js';

/** Probes for orchestrators, outside /api/v1: /health/live and /health/ready. */
export const healthModule = defineModule({
  name: 'health',
  build({ store }) {
    let closing = false;
    return {
      rootRoutes: (app) => healthRoutes(app, { ping: () => store.ping(), isClosing: () => closing }),
      drain: () => {
        closing = true;
      },
      stop: () => {
        closing = true;
      },
    };
  },
});
