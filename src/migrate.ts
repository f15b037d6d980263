import { allMigrations } from './modules/index.js';
import { loadConfig } from './platform/config.js';
import { migrateToLatest } from './platform/store/migrate.js';
import { openDatabase } from './platform/store/store.js';

/** `npm run migrate`: the same migrations the server applies at start, run on their own. */
const config = loadConfig();
const handle = openDatabase(config);
try {
  const applied = await migrateToLatest(handle.db, handle.schema, allMigrations());
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
} finally {
  await handle.db.destroy();
}
