import { ref } from '../../platform/http/schemas.js';
import { defineModule } from '../../platform/module.js';
import { OPERATIONS } from './operations.js';
import { securityLogQueries } from './queries.js';
import { securityLogRoutes } from './routes.js';
import { SecurityLogEntry } from './schemas.js';
import { createSecurityLog } from './service.js';
import type { SecurityLog } from './service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    securityLog: SecurityLog;
  }
}

/** The account's security log: written by the auth modules, read at GET /auth/security-log. */
export const securityLogModule = defineModule({
  name: 'security-log',
  operations: OPERATIONS,
  schemas: [SecurityLogEntry],
  build({ store, clock, accountData }) {
    const securityLog = createSecurityLog({ db: store.repository({ log: securityLogQueries }), clock });
    accountData.declare('security-log', {
      tables: { security_log: { exported: 'security_log' } },
      sections: [{ name: 'security_log', description: 'Sign-ins, passkey and TOTP changes, recovery, revocations, deletion: newest first', kind: 'list', item: ref(SecurityLogEntry), pages: securityLog.exportPages }],
      erase: securityLog.erase,
    });
    return { provides: { securityLog }, routes: (app) => securityLogRoutes(app, { securityLog }) };
  },
});
