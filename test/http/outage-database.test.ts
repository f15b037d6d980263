// The database goes away under a running node (issue: a dropped PostgreSQL connection ended the
// process). PostgreSQL kills the node's backends (pg_terminate_backend) while requests are in
// flight, then becomes unreachable and comes back: the node stays up, answers 503
// database_unavailable with Retry-After (never 500) meanwhile, says 503 on /health/ready, and
// serves again by itself once the database answers. The shared PostgreSQL is never stopped: the
// node reaches it through a relay the test cuts (helpers/tcp-outage.ts).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { createStore } from '../../src/platform/store/store.js';
import type { Store } from '../../src/platform/store/store.js';
import { openPostgres } from '../../src/platform/store/db.js';
import { PUBLIC_ORIGIN, testConfig } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { TestClient, uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { createContractChecker } from '../helpers/contract.js';
import { createManualClock } from '../../src/platform/clock.js';
import { startOutageRelay, throughRelay } from '../helpers/tcp-outage.js';
import type { Outage } from '../helpers/tcp-outage.js';

const postgres = backends.find((b) => b.name === 'postgres')!;
const ME = '/api/v1/me';

describe('the database goes away under a node [postgres]', { skip: postgres.skip }, () => {
  const applicationName = `vid_outage_${randomBytes(4).toString('hex')}`;
  let database: Awaited<ReturnType<typeof postgres.open>>;
  let relay: Outage;
  let store: Store;
  let app: FastifyInstance;
  let baseUrl: string;
  let client: TestClient;
  let device: Device;
  let admin: pg.Client;

  /** Ends every backend of this node (pool and LISTEN connection), as a failover or an operator would. */
  async function terminateBackends(): Promise<number> {
    const { rows } = await admin.query('select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where application_name = $1', [applicationName]);
    return rows[0].n;
  }

  /** GET /me as the device, checked against the contract (a 503 is documented on every route). */
  const me = () => client.as(device, 'GET', ME);

  function assertUnavailable(res: { status: number; headers: Headers; body: any }, what: string): void {
    assert.equal(res.status, 503, `${what}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.code, 'database_unavailable', what);
    assert.match(res.headers.get('retry-after') ?? '', /^[1-9]\d*$/, `${what}: Retry-After`);
  }

  before(async () => {
    database = await postgres.open();
    const url = new URL(database.databaseUrl as string);
    relay = await startOutageRelay({ host: url.hostname, port: Number(url.port || 5432) });
    url.searchParams.set('application_name', applicationName);
    const relayed = throughRelay(url.toString(), relay);
    store = createStore(openPostgres(relayed, { schema: database.schema, poolSize: 5, connectTimeoutMs: 1000 }));
    const clock = createManualClock(Date.now());
    const built = await buildApp({ config: testConfig(relayed), store, clock, logger: false });
    app = built.app;
    await app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    client = new TestClient(baseUrl, PUBLIC_ORIGIN, createContractChecker(JSON.parse(JSON.stringify(app.swagger()))), clock.now);
    device = await client.signUp(uniqueName('outage'));
    admin = new pg.Client({ connectionString: database.databaseUrl });
    await admin.connect();
  });
  after(async () => {
    await admin?.end();
    await app?.close();
    await store?.close();
    await relay?.close();
    await database?.cleanup();
  });

  it('keeps running when the backend of a checked-out connection is terminated', async () => {
    // Checked out, as a transaction holds it: the pool's own error listener is off meanwhile.
    const held = await store.handle.pool!.connect();
    const { rows } = await held.query<{ pid: number }>('select pg_backend_pid() as pid');
    await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
    // The backend's FATAL message and the closed socket arrive as 'error' events on the client.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await assert.rejects(held.query('select 1'));
    held.release(true);
    assert.equal((await me()).status, 200);
  });

  it('answers 200 or 503 + Retry-After, never 500, while its backends are terminated mid-request, and serves again', async () => {
    for (let round = 0; round < 3; round++) {
      // The pool holds connections (idle ones, and those the requests below check out).
      assert.equal((await me()).status, 200);
      const inFlight = Array.from({ length: 12 }, () => me());
      await new Promise((resolve) => setImmediate(resolve));
      assert.ok((await terminateBackends()) >= 1, 'the node had backends to terminate');
      for (const res of await Promise.all(inFlight)) {
        if (res.status !== 200) assertUnavailable(res, 'a request whose connection was terminated');
      }
    }
    assert.equal((await me()).status, 200, 'a fresh connection serves the next request');
  });

  it('says 503 on every request and on /health/ready while the database is unreachable, and recovers by itself', async () => {
    relay.cut();
    try {
      const started = Date.now();
      assertUnavailable(await me(), 'GET /me while the database is away');
      const ready = await fetch(`${baseUrl}/health/ready`);
      assert.equal(ready.status, 503);
      assert.ok(ready.headers.get('retry-after'));
      assert.ok(Date.now() - started < 3000, 'a refused connection is answered at once');
    } finally {
      relay.restore();
    }
    // A database that accepts connections and never answers: refused within the connect timeout.
    relay.hang();
    try {
      const started = Date.now();
      assertUnavailable(await me(), 'GET /me while the database hangs');
      assert.ok(Date.now() - started < 4000, `answered after ${Date.now() - started} ms`);
    } finally {
      relay.restore();
    }
    const deadline = Date.now() + 5000;
    let res = await me();
    while (res.status !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      res = await me();
    }
    assert.equal(res.status, 200, 'serves again without a restart');
    assert.equal((await fetch(`${baseUrl}/health/ready`)).status, 200);
  });
});
