import { defineModule } from '../../platform/module.js';
import { OPERATIONS } from './operations.js';
import { accountQueries } from '../../platform/store/accounts.js';
import { createJoinFactors } from './factors.js';
import { join } from './migrations/005-join.js';
import { joinQueries } from './queries.js';
import { joinRoutes } from './routes.js';
import { JoinAttempt, PendingJoin } from './schemas.js';
import { createJoinService } from './service.js';

/** Letting a new device in with a 6-digit code a trusted device approves (spec: join attempt). */
export const joinModule = defineModule({
  name: 'join',
  operations: OPERATIONS,
  migrations: { '005-join': join },
  schemas: [JoinAttempt, PendingJoin],
  tags: [{ name: 'join', description: 'Letting a new device in with a 6-digit code' }],
  build({ config, clock, store, limiter, subkeys, ceremonies, accountData, metrics }, { usernames, passkeys, totp, recovery, sessions, securityLog }) {
    const service = createJoinService({
      db: store.repository({ join: joinQueries, accounts: accountQueries }),
      clock,
      rp: config.webauthn,
      ceremonies,
      limits: config.join,
      codeKeys: subkeys('join-codes'),
      limiter,
      usernames,
      passkeys,
      sessions,
      securityLog,
      factors: createJoinFactors({ totp, recovery }),
      metrics,
    });
    accountData.declare('join', {
      tables: {
        join_codes: { leftOut: 'one-time codes that live for minutes, kept only as keyed hashes' },
        join_attempts: { leftOut: 'device-join attempts live for minutes; the sessions they opened are under sessions, and the security log has the rest' },
      },
      erase: (tx, accountId) => tx.use(joinQueries).removeAll(accountId),
    });
    return { routes: (app) => joinRoutes(app, { join: service }) };
  },
});
