import { defineModule } from '../../platform/module.js';
import { accountQueries } from '../../platform/store/accounts.js';
import { recoveryKeyQueries } from './queries.js';
import { recoveryRoutes } from './routes.js';
import { createRecoveryService } from './service.js';
import type { RecoveryService } from './service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    recovery: RecoveryService;
  }
}

/** The recovery key (made at sign-up, downloaded with step-up) and recovery without a passkey. */
export const recoveryModule = defineModule({
  name: 'recovery',
  build({ config, clock, store, box, limiter, ceremonies }, { usernames, passkeys, totp, sessions, securityLog }) {
    const recovery = createRecoveryService({
      db: store.repository({ keys: recoveryKeyQueries, accounts: accountQueries }),
      clock,
      rp: config.webauthn,
      limits: config.recovery,
      box,
      limiter,
      ceremonies,
      usernames,
      passkeys,
      totp,
      sessions,
      securityLog,
    });
    return { provides: { recovery }, routes: (app) => recoveryRoutes(app, { recovery }) };
  },
});
