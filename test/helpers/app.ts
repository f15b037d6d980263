import type { AddressInfo } from 'node:net';
import { buildApp } from '../../src/app.js';
import { createManualClock } from '../../src/platform/clock.js';
import { loadConfig } from '../../src/platform/config.js';
import type { Config } from '../../src/platform/config.js';
import type { AccountData } from '../../src/platform/account-data.js';
import type { ModuleServices } from '../../src/platform/module.js';
import type { Store } from '../../src/platform/store/store.js';
import type { TestBackend } from './backends.js';
import { TestClient } from './client.js';
import { createContractChecker } from './contract.js';
import { signalsOffCatalogue } from './signal-catalogue.js';

export const PUBLIC_ORIGIN = 'http://localhost:8080';
/** Seals TOTP secrets and recovery keys in tests (32 bytes, base64url). */
export const TEST_SECRET_KEY = Buffer.alloc(32, 7).toString('base64url');

export interface TestApp {
  baseUrl: string;
  config: Config;
  store: Store;
  clock: ReturnType<typeof createManualClock>;
  client: TestClient;
  /** The modules' services (the purge, driven with the test's clock). */
  services: ModuleServices;
  /** What each module declared about account data. */
  accountData: AccountData;
  /** GET /metrics on its own listener, when the suite set METRICS_PORT. */
  metricsUrl?: string;
  close(): Promise<void>;
}

/**
 * The configuration every test service starts from: the public origin proofs are made for, a
 * fixed sealing key, limits out of the way (suites that test limits set their own), and no load
 * shedding on event-loop delay (a busy test machine is not an overloaded server).
 */
export function testConfig(databaseUrl: string | undefined, env: Record<string, string> = {}): Config {
  return loadConfig({
    PUBLIC_ORIGIN,
    SECRET_KEY: TEST_SECRET_KEY,
    RATE_LIMIT_AUTH_PER_MIN: '100000',
    RATE_LIMIT_USER_PER_MIN: '100000',
    RATE_LIMIT_PUBLIC_PER_MIN: '100000',
    RATE_LIMIT_WEB_PER_MIN: '100000',
    RATE_LIMIT_PROBE_PER_MIN: '100000',
    RATE_LIMIT_DAV_PER_MIN: '100000',
    AUTH_FAILURES_PER_CLIENT_PER_MIN: '100000',
    AUTH_FAILURES_PER_KEY_PER_MIN: '100000',
    SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
    // A busy shared test machine can keep Redis waiting past the production 50 ms; suites that
    // share counters across nodes must not fall back to memory for that.
    REDIS_COMMAND_TIMEOUT_MS: '1000',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...env,
  });
}

/**
 * A clock that runs with the wall clock and that a test may still move ahead by hand: for a
 * browser, whose passkeys and DPoP proofs carry the real time (a stopped clock would find its
 * proofs from the future a few seconds into a suite).
 */
export function createRunningClock(): ReturnType<typeof createManualClock> {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance(ms: number) {
      offset += ms;
    },
    set(ms: number) {
      offset = ms - Date.now();
    },
  };
}

/**
 * The real service on a real port (127.0.0.1, any free port) over a fresh database of the
 * given backend, with a clock the test moves by hand (or a running one for browsers). Proofs and
 * WebAuthn use the configured public origin, as they would behind a reverse proxy.
 */
export async function startTestApp(backend: TestBackend, env: Record<string, string> = {}, port = 0, clock = createManualClock(Date.now())): Promise<TestApp> {
  const database = await backend.open();
  const config = testConfig(database.databaseUrl, env);
  let app;
  let store: Store;
  let services: ModuleServices;
  let accountData: AccountData;
  let metricsUrl: string | undefined;
  try {
    ({ app, store, services, accountData, metricsUrl } = await buildApp({ config, store: database.store, clock, logger: false }));
  } catch (error) {
    await database.cleanup();
    throw error;
  }
  await app.listen({ host: '127.0.0.1', port });
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  // The contract comes from the app itself, so a test that makes requests fail still gets it.
  const document = JSON.parse(JSON.stringify(app.swagger()));
  const client = new TestClient(baseUrl, PUBLIC_ORIGIN, createContractChecker(document), clock.now);
  return {
    baseUrl,
    config,
    store,
    clock,
    client,
    services,
    accountData,
    metricsUrl,
    async close() {
      // Whatever a suite did, every signal it caused names the resource the catalogue promises.
      const offCatalogue = await signalsOffCatalogue(store).catch((error) => [`unreadable: ${error}`]);
      await app.close();
      await database.cleanup();
      if (offCatalogue.length) throw new Error(`signals off the catalogue: ${offCatalogue.join(', ')}`);
    },
  };
}
