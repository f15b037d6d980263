import { defineModule } from '../../platform/module.js';
import { OPERATIONS } from './operations.js';
import { stepUpRoutes } from './routes.js';
import { createStepUpService } from './service.js';
import type { StepUpService } from './service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    stepUp: StepUpService;
  }
}

/** Step-up: POST /auth/step-up/begin, and the check the platform's step-up hook runs on sensitive routes. */
export const stepUpModule = defineModule({
  name: 'step-up',
  operations: OPERATIONS,
  build({ config, clock, ceremonies, metrics }, { passkeys }) {
    const stepUp = createStepUpService({ clock, rp: config.webauthn, ceremonies, passkeys, metrics });
    return { provides: { stepUp }, routes: (app) => stepUpRoutes(app, { stepUp }) };
  },
});
