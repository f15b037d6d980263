import { defineModule } from '../../platform/module.js';
import { OPERATIONS } from './operations.js';
import { usernameKeys } from './migrations/013-username-keys.js';
import { usernameSequenceKeys } from './migrations/020-username-sequence-keys.js';
import { usernameQueries } from './queries.js';
import { usernameRoutes } from './routes.js';
import { loadReservedNames } from './rules.js';
import { UsernameCheckResult } from './schemas.js';
import { createUsernameService } from './service.js';
import type { UsernameService } from './service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    usernames: UsernameService;
  }
}

/** Username rules (PRECIS, reserved names, confusables) and POST /auth/username/check. */
export const usernamesModule = defineModule({
  name: 'usernames',
  operations: OPERATIONS,
  migrations: { '013-username-keys': usernameKeys, '020-username-sequence-keys': usernameSequenceKeys },
  schemas: [UsernameCheckResult],
  build({ config, store }) {
    const usernames = createUsernameService({ db: store.repository({ names: usernameQueries }), reserved: loadReservedNames(config.reservedUsernamesFile) });
    return { provides: { usernames }, routes: (app) => usernameRoutes(app, { usernames }) };
  },
});
