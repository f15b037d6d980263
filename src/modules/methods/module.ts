import { defineModule } from '../../platform/module.js';
import { createPasskeyService } from './passkeys.js';
import type { PasskeyService } from './passkeys.js';
import { passkeyQueries, totpQueries } from './queries.js';
import { passkeyRoutes } from './routes.js';
import { Passkey, TotpAuthenticator } from './schemas.js';
import { createTotpService } from './totp.js';
import type { TotpService } from './totp.js';
import { totpRoutes } from './totp-routes.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    passkeys: PasskeyService;
    totp: TotpService;
  }
}

/** The account's sign-in methods: passkeys (/auth/methods) and TOTP authenticators (/auth/totp). */
export const methodsModule = defineModule({
  name: 'methods',
  schemas: [Passkey, TotpAuthenticator],
  build({ config, clock, store, box, limiter, ceremonies }, { securityLog }) {
    const passkeys = createPasskeyService({ db: store.repository({ passkeys: passkeyQueries }), clock, rp: config.webauthn, ceremonies, securityLog });
    const totp = createTotpService({ db: store.repository({ totp: totpQueries }), clock, issuer: config.webauthn.rpName, box, limiter, securityLog });
    return {
      provides: { passkeys, totp },
      routes: async (app) => {
        await passkeyRoutes(app, { passkeys });
        await totpRoutes(app, { totp });
      },
    };
  },
});
