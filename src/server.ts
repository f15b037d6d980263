import { buildApp } from './app.js';
import { loadConfig } from './platform/config.js';

/** Start, stop on SIGTERM/SIGINT after in-flight requests finish, and nothing else. */
const config = loadConfig();
const { app, metricsUrl } = await buildApp({ config });

const SHUTDOWN_GRACE_MS = 10_000;
let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  app.log.info({ signal }, 'shutting down');
  // If draining hangs (a stuck client), exit anyway rather than block a deploy.
  setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
  await app.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

await app.listen({ host: config.host, port: config.port });
app.log.info(`VID listening on ${config.publicOrigin} (database: ${config.database.kind})`);
if (metricsUrl) app.log.info(`metrics at ${metricsUrl}`);
