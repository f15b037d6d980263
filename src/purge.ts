import { buildApp } from './app.js';
import { loadCommandConfig } from './platform/config.js';

/**
 * `npm run purge`: the purge every node runs each minute (PRODUCT §8), run once by an operator:
 * erases the accounts whose grace is over and frees the usernames whose hold ended. Safe while
 * the service runs: each account is claimed by one conditional update, so nothing is purged twice.
 */
const config = loadCommandConfig();
const { app, services } = await buildApp({ config });
try {
  const run = await services.purge.run();
  console.log(`purged ${run.purged} account(s), freed ${run.released} username(s)${run.failed ? `, ${run.failed} failed (see above; the next run retries)` : ''}`);
  if (run.failed) process.exitCode = 1;
} finally {
  await app.close();
}
