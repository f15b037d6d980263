import type { VidModule } from '../platform/module.js';
import { collectMigrations } from '../platform/store/migrate.js';
import { accountModule } from './account/module.js';
import { addressBookModule } from './address-book/module.js';
import { cardChangesModule } from './card-changes/module.js';
import { cardPhotosModule } from './card-photos/module.js';
import { contactsModule } from './contacts/module.js';
import { davSetupLinksModule } from './dav-setup-links/module.js';
import { davTokensModule } from './dav-tokens/module.js';
import { fieldsModule } from './fields/module.js';
import { healthModule } from './health/module.js';
import { joinModule } from './join/module.js';
import { keysModule } from './keys/module.js';
import { meModule } from './me/module.js';
import { photosModule } from './photos/module.js';
import { methodsModule } from './methods/module.js';
import { profilesModule } from './profiles/module.js';
import { recoveryModule } from './recovery/module.js';
import { regionsModule } from './regions/module.js';
import { securityLogModule } from './security-log/module.js';
import { shareLinksModule } from './share-links/module.js';
import { sessionsModule } from './sessions/module.js';
import { signInModule } from './sign-in/module.js';
import { signalsModule } from './signals/module.js';
import { stepUpModule } from './step-up/module.js';
import { usernamesModule } from './usernames/module.js';
import { webAppModule } from './web-app/module.js';

/**
 * Every resource group, in build order: a module may use the services of those above it.
 * Adding a group is one folder and one line here.
 */
export const modules: readonly VidModule[] = [
  healthModule,
  securityLogModule,
  usernamesModule,
  sessionsModule,
  methodsModule,
  meModule,
  recoveryModule,
  signInModule,
  stepUpModule,
  joinModule,
  photosModule,
  fieldsModule,
  profilesModule,
  contactsModule,
  cardChangesModule,
  regionsModule,
  cardPhotosModule,
  shareLinksModule,
  keysModule,
  davTokensModule,
  davSetupLinksModule,
  addressBookModule,
  accountModule,
  signalsModule,
  webAppModule,
];

/** The platform's migrations and every module's, in name order (src/migrate.ts, app.ts, tests). */
export const allMigrations = () => collectMigrations(modules);
