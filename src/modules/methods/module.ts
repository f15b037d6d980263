import { ref } from '../../platform/http/schemas.js';
import { defineModule } from '../../platform/module.js';
import { OPERATIONS } from './operations.js';
import { createPasskeyService } from './passkeys.js';
import type { PasskeyService } from './passkeys.js';
import { passkeyQueries, totpQueries } from './queries.js';
import { passkeyRoutes } from './routes.js';
import { Passkey, TotpAuthenticator } from './schemas.js';
import { createTotpService, TOTP_SEAL_PURPOSE } from './totp.js';
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
  operations: OPERATIONS,
  schemas: [Passkey, TotpAuthenticator],
  build({ config, clock, store, box, sealed, limiter, ceremonies, accountData }, { securityLog, sessions }) {
    const passkeys = createPasskeyService({
      db: store.repository({ passkeys: passkeyQueries }),
      clock,
      rp: config.webauthn,
      ceremonies,
      securityLog,
      signInPasskeyOf: sessions.signInPasskeyOf,
    });
    const totp = createTotpService({ db: store.repository({ totp: totpQueries }), clock, issuer: config.webauthn.rpName, box, limiter, securityLog });
    sealed.declare({ table: 'totp_authenticators', key: ['id'], column: 'secret_sealed', purpose: TOTP_SEAL_PURPOSE });
    accountData.declare('methods', {
      tables: {
        passkeys: { exported: 'passkeys', withheld: { columns: ['public_key', 'counter', 'credential_id'], reason: 'the credential itself: of use only to the server that checks your signatures' } },
        totp_authenticators: { exported: 'totp', withheld: { columns: ['secret_sealed', 'last_step'], reason: 'the TOTP secret would let whoever holds the file make your codes' } },
      },
      sections: [
        { name: 'passkeys', description: 'Your passkeys: names, dates, backup state (public keys and counters stay on the server)', kind: 'list', item: ref(Passkey), pages: passkeys.exportPages },
        { name: 'totp', description: 'Your authenticator apps: names and dates (their secrets are left out)', kind: 'list', item: ref(TotpAuthenticator), pages: totp.exportPages },
      ],
      async erase(tx, accountId) {
        await totp.erase(tx, accountId);
        await passkeys.erase(tx, accountId);
      },
    });
    return {
      provides: { passkeys, totp },
      routes: async (app) => {
        await passkeyRoutes(app, { passkeys });
        await totpRoutes(app, { totp });
      },
    };
  },
});
