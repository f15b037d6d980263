import { Migrator } from 'kysely';
import type { Kysely } from 'kysely';
import { migrationProvider } from './migrations/index.js';

/** Applies every pending migration; Kysely's migration lock keeps concurrent nodes from racing. */
export async function migrateToLatest(db: Kysely<any>, schema?: string): Promise<string[]> {
  // With a schema of our own, name it: Kysely's table introspection sees every schema, and a
  // migration table in `public` would otherwise be taken for ours.
  const migrator = new Migrator({ db, provider: migrationProvider, ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
