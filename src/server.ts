import { buildApp } from './app.js';
import { loadConfig } from './platform/config.js';
import { listen, listenRefusal } from './platform/http/listen.js';
import { logOutput } from './platform/log-output.js';
import { claimSqlite, SqliteInUse } from './platform/store/sqlite-owner.js';
import type { SqliteOwnership } from './platform/store/sqlite-owner.js';

/** Start, stop on SIGTERM/SIGINT after in-flight requests finish, and nothing else. */
const config = loadConfig();
// One service per SQLite file, and no restore under it (decision 100).
let ownership: SqliteOwnership | undefined;
if (config.database.kind === 'sqlite' && config.database.path !== ':memory:') {
  try {
    ownership = claimSqlite(config.database.path, 'the VID service');
  } catch (error) {
    if (!(error instanceof SqliteInUse)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}
const { app, metricsUrl, drain } = await buildApp({ config, logger: logOutput(process.stdout) });

const SHUTDOWN_GRACE_MS = 10_000;
let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  // SIGTERM (an orchestrator, a rolling restart): readiness says 503 first, for DRAIN_DELAY_S,
  // while every request is still served, so the balancer's health checks take the node out
  // before its port closes. SIGINT (a person's Ctrl-C) closes at once.
  const delayMs = signal === 'SIGTERM' ? config.drainDelaySeconds * 1000 : 0;
  // If draining hangs (a stuck client), exit anyway rather than block a deploy.
  setTimeout(() => process.exit(1), delayMs + SHUTDOWN_GRACE_MS).unref();
  if (delayMs > 0) {
    drain();
    app.log.info({ signal }, `draining: /health/ready answers 503 for ${config.drainDelaySeconds} s, then the port closes`);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
  app.log.info({ signal }, 'shutting down');
  await app.close();
  ownership?.release();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

try {
  app.log.info(await listen(app, config));
} catch (error) {
  // A port someone else holds is a sentence to act on, not a stack trace.
  const refusal = listenRefusal(error, config);
  if (!refusal) throw error;
  console.error(refusal);
  await app.close();
  ownership?.release();
  process.exit(1);
}
if (metricsUrl) app.log.info(`metrics at ${metricsUrl}`);
