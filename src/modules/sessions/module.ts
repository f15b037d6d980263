import { defineModule } from '../../platform/module.js';
import { OPERATIONS } from './operations.js';
import { sessionDevices } from './migrations/015-session-devices.js';
import { authLookupQueries, refreshTokenQueries, renewalQueries, sessionQueries } from './queries.js';
import { sessionRoutes } from './routes.js';
import { ExportedSession, Place, Session, Tokens } from './schemas.js';
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
  operations: OPERATIONS,
  migrations: { '015-session-devices': sessionDevices },
  schemas: [Tokens, Place, Session],
  tags: [{ name: 'auth', description: 'Usernames, passkeys, sessions, step-up, TOTP, recovery' }],
  build({ config, clock, store, accountData, metrics }, { securityLog }) {
    const sessions = createSessionService({
      db: store.repository({ sessions: sessionQueries, refreshTokens: refreshTokenQueries }),
      authLookup: authLookupQueries(store.handle),
      renewal: renewalQueries(store.handle),
      clock,
      tokens: config.tokens,
      securityLog,
      metrics,
    });
    metrics.countLiveSessionsWith(store.use(sessionQueries).countLive);
    accountData.declare('sessions', {
      tables: {
        sessions: { exported: 'sessions', withheld: { columns: ['access_hash', 'jkt'], reason: 'token hashes and device-key thumbprints: secrets, or of use only to the server' } },
        refresh_tokens: { leftOut: 'refresh tokens are secrets (stored only as hashes), useless outside the server' },
      },
      sections: [{ name: 'sessions', description: 'Every session: device, address and approximate place, the passkey it signed in with, when it started, was last seen, ends or was revoked', kind: 'list', item: ExportedSession, pages: sessions.exportPages }],
      erase: sessions.erase,
    });
    return { provides: { sessions }, routes: (app) => sessionRoutes(app, { sessions }) };
  },
});
