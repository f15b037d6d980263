import { loadConfig } from '../config.js';
import { openDatabase } from './store.js';
import { migrateToLatest } from './migrate.js';

/** `npm run migrate`: the same migrations the server applies at start, run on their own. */
const config = loadConfig();
const handle = openDatabase(config);
try {
  const applied = await migrateToLatest(handle.db, handle.schema);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
} finally {
  await handle.db.destroy();
}
