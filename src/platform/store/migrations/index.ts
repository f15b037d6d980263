import type { Migration, MigrationProvider } from 'kysely';
import { foundation } from './001-foundation.js';
import { events } from './002-events.js';
import { identityFields } from '../../../modules/fields/migrations/003-identity-fields.js';
import { accountSecurity } from './004-account-security.js';
import { join } from '../../../modules/join/migrations/005-join.js';

/** Versioned migrations, applied in name order. Never edit a shipped one: add the next. */
const migrations: Record<string, Migration> = {
  '001-foundation': foundation,
  '002-events': events,
  '003-identity-fields': identityFields,
  '004-account-security': accountSecurity,
  '005-join': join,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
