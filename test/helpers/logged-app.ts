import type { AddressInfo } from 'node:net';
import { buildApp } from '../../src/app.js';
import { createManualClock } from '../../src/platform/clock.js';
import { PUBLIC_ORIGIN, testConfig } from './app.js';
import type { TestApp } from './app.js';
import type { TestBackend } from './backends.js';
import { TestClient } from './client.js';
import { createContractChecker } from './contract.js';
import { social } from './social.js';

/** A server whose every log line (at `trace`) the test reads: for "this secret never reaches the logs". */
export interface LoggedApp {
  lines: string[];
  baseUrl: string;
  client: TestClient;
  s: ReturnType<typeof social>;
}

/** Runs `body` against a fresh server on `backend` that logs everything into `lines`, then closes it. */
export async function withLoggedApp(backend: TestBackend, body: (app: LoggedApp) => Promise<void>, env: Record<string, string> = {}): Promise<void> {
  const lines: string[] = [];
  const database = await backend.open();
  const clock = createManualClock(Date.now());
  const { app, store } = await buildApp({ config: testConfig(database.databaseUrl, env), store: database.store, clock, logger: { level: 'trace', stream: { write: (line: string) => lines.push(line) } } });
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const client = new TestClient(baseUrl, PUBLIC_ORIGIN, createContractChecker(JSON.parse(JSON.stringify(app.swagger()))), clock.now);
    await body({ lines, baseUrl, client, s: social({ client, store, clock } as unknown as TestApp) });
  } finally {
    await app.close();
    await database.cleanup();
  }
}
