import { defineModule } from '../../platform/module.js';
import { OPERATIONS } from './operations.js';
import { accountQueries } from '../../platform/store/accounts.js';
import { recoveryKeyDownloads } from './migrations/016-recovery-key-downloads.js';
import { recoveryKeyQueries } from './queries.js';
import { recoveryRoutes } from './routes.js';
import { RecoveryKeyState } from './schemas.js';
import { createRecoveryService, RECOVERY_SEAL_PURPOSE } from './service.js';
import type { RecoveryService } from './service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    recovery: RecoveryService;
  }
}

/** The recovery key (made at sign-up, downloaded with step-up) and recovery without a passkey. */
export const recoveryModule = defineModule({
  name: 'recovery',
  operations: OPERATIONS,
  migrations: { '016-recovery-key-downloads': recoveryKeyDownloads },
  schemas: [RecoveryKeyState],
  build({ config, clock, store, box, sealed, limiter, ceremonies, accountData, metrics }, { usernames, passkeys, totp, sessions, securityLog }) {
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
      metrics,
    });
    sealed.declare({ table: 'recovery_keys', key: ['account_id'], column: 'key_sealed', purpose: RECOVERY_SEAL_PURPOSE });
    accountData.declare('recovery', {
      tables: { recovery_keys: { leftOut: 'the recovery key is a secret (download it under Security instead); a file lying around must not let anyone in' } },
      erase: (tx, accountId) => tx.use(recoveryKeyQueries).remove(accountId),
    });
    return { provides: { recovery }, routes: (app) => recoveryRoutes(app, { recovery }) };
  },
});
