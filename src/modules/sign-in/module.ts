import { defineModule } from '../../platform/module.js';
import { OPERATIONS } from './operations.js';
import { accountQueries } from '../../platform/store/accounts.js';
import { signInRoutes } from './routes.js';
import { createSignInService } from './service.js';

/** Sign-up (a new account with its first passkey) and discoverable sign-in. */
export const signInModule = defineModule({
  name: 'sign-in',
  operations: OPERATIONS,
  build({ config, clock, store, ceremonies, metrics }, { usernames, passkeys, recovery, sessions, securityLog, me }) {
    const signIn = createSignInService({
      db: store.repository({ accounts: accountQueries }),
      clock,
      rp: config.webauthn,
      region: config.region,
      ceremonies,
      usernames,
      passkeys,
      recovery,
      sessions,
      securityLog,
      me,
      metrics,
    });
    return { routes: (app) => signInRoutes(app, { signIn }) };
  },
});
