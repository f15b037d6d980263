import { Migrator } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import { platformMigrations } from './migrations/index.js';

/**
 * Every migration: the platform's own and each module's (module.ts `migrations`), applied in
 * name order. Names carry one global sequence ("006-profiles"), so a database migrates the same
 * way whatever the order of the module list; a name used twice is a mistake caught at start.
 */
export function collectMigrations(modules: ReadonlyArray<{ name: string; migrations?: Record<string, Migration> }>): Record<string, Migration> {
  const all: Record<string, Migration> = { ...platformMigrations };
  for (const module of modules) {
    for (const [name, migration] of Object.entries(module.migrations ?? {})) {
      if (name in all) throw new Error(`migration ${name} of module ${module.name} is already defined`);
      all[name] = migration;
    }
  }
  return Object.fromEntries(Object.entries(all).sort(([a], [b]) => a.localeCompare(b)));
}

/** Applies every pending migration; Kysely's migration lock keeps concurrent nodes from racing. */
export async function migrateToLatest(db: Kysely<any>, schema: string | undefined, migrations: Record<string, Migration>): Promise<string[]> {
  // With a schema of our own, name it: Kysely's table introspection sees every schema, and a
  // migration table in `public` would otherwise be taken for ours.
  // Unordered: a module's migration may take a free number below one already shipped (009-keys
  // came after 010-lifecycle); a database that ran 010 then runs 009. Each migration touches its
  // own tables, so the order among the pending ones (still name order) is all that matters.
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    allowUnorderedMigrations: true,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
