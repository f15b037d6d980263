import type { Migration } from 'kysely';
import { foundation } from './001-foundation.js';
import { events } from './002-events.js';
import { accountSecurity } from './004-account-security.js';

/**
 * The platform's migrations: the first ones shipped, which created the tables of several groups
 * at once (accounts and the signal log, which the platform owns, and the first auth tables).
 * They keep their names and stay here, because a database records what ran by name. Every
 * later migration belongs to one module (its `migrations/`). Never edit a shipped one: add the next.
 */
export const platformMigrations: Record<string, Migration> = {
  '001-foundation': foundation,
  '002-events': events,
  '004-account-security': accountSecurity,
};
