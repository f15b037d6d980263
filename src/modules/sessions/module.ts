import { defineModule } from '../../platform/module.js';
import { authLookupQueries, refreshTokenQueries, sessionQueries } from './queries.js';
import { sessionRoutes } from './routes.js';
import { Session, Tokens } from './schemas.js';
import { createSessionService } from './service.js';
import type { SessionService } from './service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    sessions: SessionService;
  }
}

/** DPoP-bound sessions: opening, authenticating every request, renewal, logout, the session list. */
export const sessionsModule = defineModule({
  name: 'sessions',
  schemas: [Tokens, Session],
  tags: [{ name: 'auth', description: 'Usernames, passkeys, sessions, step-up, TOTP, recovery' }],
  build({ config, clock, store }, { securityLog }) {
    const sessions = createSessionService({
      db: store.repository({ sessions: sessionQueries, refreshTokens: refreshTokenQueries }),
      authLookup: store.use(authLookupQueries),
      clock,
      tokens: config.tokens,
      securityLog,
    });
    return { provides: { sessions }, routes: (app) => sessionRoutes(app, { sessions }) };
  },
});
