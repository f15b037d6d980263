// The HAProxy example (examples/haproxy/haproxy.cfg, Debian's haproxy) in front of two nodes on a
// PostgreSQL cluster and a Redis of the test's own (initdb/pg_ctl and redis-server in a temporary
// directory: the machine's shared ones are never stopped). Under steady traffic through the
// balancer, PostgreSQL's backends are killed, PostgreSQL restarts, and Redis stops and comes
// back: the nodes stay up, nothing answers 500, what is refused meanwhile is 503 with Retry-After,
// readiness says 503 while the database is away, and service is back within seconds without a
// restart. A missing binary fails the test (CI installs them: .ci/run), it never skips.
import { freePort } from '../helpers/ports.js';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { allMigrations } from '../../src/modules/index.js';
import { openPostgres } from '../../src/platform/store/db.js';
import { migrateToLatest } from '../../src/platform/store/migrate.js';
import { createStore } from '../../src/platform/store/store.js';
import type { Store } from '../../src/platform/store/store.js';
import { projectRoot } from '../../src/platform/paths.js';
import { PUBLIC_ORIGIN, testConfig } from '../helpers/app.js';
import { TestClient, uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { createContractChecker } from '../helpers/contract.js';
import { issueCode, redeemOk, RELAXED_JOIN_LIMITS } from '../helpers/join.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function postgresBin(name: string): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) if (existsSync(join(root, version, 'bin', name))) return join(root, version, 'bin', name);
  throw new Error(`${name} not found under ${root}: install PostgreSQL's server package (.ci/run does)`);
}

function onPath(name: string): string {
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(`${name} is not installed: apt-get install -y ${name === 'redis-server' ? 'redis-server' : name} (.ci/run does)`);
  }
}


async function until(check: () => Promise<boolean>, timeoutMs: number, what: string, explain?: () => string): Promise<number> {
  const started = Date.now();
  while (!(await check().catch(() => false))) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${explain ? `: ${explain()}` : ''}`);
    await pause(100);
  }
  return Date.now() - started;
}

describe('two nodes behind the HAProxy example through PostgreSQL and Redis outages', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vid-outage-'));
  const pgData = join(dir, 'pg');
  let pgPort: number;
  let redisPort: number;
  let redis: ChildProcess | undefined;
  let haproxy: ChildProcess | undefined;
  let balancerUrl: string;
  const nodes: Array<{ app: FastifyInstance; store: Store; url: string }> = [];
  let pgCtl: string;
  let redisServer: string;

  const databaseUrl = () => `postgres://postgres@127.0.0.1:${pgPort}/postgres`;
  // PostgreSQL refuses to run as root: as root (a CI container), its commands run as the
  // postgres user that Debian's package creates.
  const asServerUser = (command: string, args: string[]) =>
    process.getuid?.() === 0 ? execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: 'ignore' }) : execFileSync(command, args, { stdio: 'ignore' });
  const pgCtlRun = (...args: string[]) => asServerUser(pgCtl, ['-D', pgData, '-w', '-t', '20', ...args]);
  const startPostgres = () => pgCtlRun('-o', `-p ${pgPort} -k ${pgData} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40`, '-l', join(pgData, 'server.log'), 'start');

  function startRedis(): void {
    redis = spawn(redisServer, ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  }

  before(async () => {
    pgCtl = postgresBin('pg_ctl');
    const initdb = postgresBin('initdb');
    redisServer = onPath('redis-server');
    const haproxyBin = onPath('haproxy');
    [pgPort, redisPort] = [await freePort(), await freePort()];
    mkdirSync(pgData, { mode: 0o700 });
    if (process.getuid?.() === 0) {
      chmodSync(dir, 0o755);
      const [uid, gid] = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim()));
      chownSync(pgData, uid!, gid!);
    }
    asServerUser(initdb, ['-D', pgData, '-U', 'postgres', '--auth=trust', '--no-sync']);
    startPostgres();
    startRedis();
    const migrator = createStore(openPostgres(databaseUrl()));
    await migrateToLatest(migrator.handle.db, migrator.handle.schema, allMigrations());
    await migrator.close();

    const config = testConfig(databaseUrl(), { REDIS_URL: `redis://127.0.0.1:${redisPort}`, REDIS_COMMAND_TIMEOUT_MS: '50', REDIS_BREAKER_OPEN_MS: '200', TRUST_PROXY: '1', ...RELAXED_JOIN_LIMITS });
    // The real clock: the test's client signs its proofs with it, for longer than DPoP's skew.
    for (let i = 0; i < 2; i++) {
      const store = createStore(openPostgres(databaseUrl(), { poolSize: 5, connectTimeoutMs: 1000 }));
      const { app } = await buildApp({ config, store, logger: false });
      await app.listen({ host: '127.0.0.1', port: 0 });
      nodes.push({ app, store, url: `127.0.0.1:${(app.server.address() as AddressInfo).port}` });
    }
    const bind = `127.0.0.1:${await freePort()}`;
    haproxy = spawn(haproxyBin, ['-db', '-f', join(projectRoot, 'examples/haproxy/haproxy.cfg')], {
      env: { ...process.env, VID_BIND: bind, VID_NODE1: nodes[0]!.url, VID_NODE2: nodes[1]!.url },
      stdio: 'ignore',
    });
    balancerUrl = `http://${bind}`;
    await until(async () => (await fetch(`${balancerUrl}/health/ready`)).status === 200, 10_000, 'HAProxy to route to a ready node');
  });

  after(async () => {
    haproxy?.kill('SIGKILL');
    for (const node of nodes) {
      await node.app.close();
      await node.store.close();
    }
    redis?.kill('SIGKILL');
    try {
      pgCtlRun('-m', 'immediate', 'stop');
    } catch {
      // Not running (a failed start): nothing to stop.
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('records the address HAProxy saw with TRUST_PROXY=1, never the X-Forwarded-For a client wrote', async () => {
    const client = new TestClient(balancerUrl, PUBLIC_ORIGIN, { check() {} }, Date.now);
    const phone = await client.signUp(uniqueName('forwarded'));
    const { code } = await issueCode(client, phone);
    await redeemOk(client, phone.username, code, { headers: { 'x-forwarded-for': '81.2.69.142' } });
    const pending = await client.as(phone, 'GET', '/api/v1/auth/join/pending');
    assert.equal(pending.status, 200);
    assert.equal(pending.body.data[0].ip, '127.0.0.1');
  });

  it('answers through every outage with 2xx or 503 + Retry-After, never 500, and serves again within seconds', async () => {
    const client = new TestClient(balancerUrl, PUBLIC_ORIGIN, createContractChecker(JSON.parse(JSON.stringify(nodes[0]!.app.swagger()))), Date.now);
    const device: Device = await client.signUp(uniqueName('balanced'));

    // Steady traffic through the balancer: writes (If-Match: *), reads, the public catalogue.
    const seen = new Map<string, number>();
    const wrong: string[] = [];
    let running = true;
    const worker = async (n: number) => {
      for (let i = 0; running; i++) {
        const kind = (n + i) % 3;
        const res =
          kind === 0
            ? await client.as(device, 'PATCH', '/api/v1/me', { body: { display_name: `Writer ${n} ${i}` }, headers: { 'if-match': '*' }, unchecked: true })
            : kind === 1
              ? await client.as(device, 'GET', '/api/v1/me', { unchecked: true })
              : await client.call('GET', '/api/v1/field-types', { unchecked: true });
        seen.set(String(res.status), (seen.get(String(res.status)) ?? 0) + 1);
        const ok = res.status === 200 || (res.status === 503 && /^\d+$/.test(res.headers.get('retry-after') ?? ''));
        if (!ok) wrong.push(`${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        if (res.status === 503) await pause(50);
      }
    };
    const workers = [0, 1, 2, 3].map(worker);
    let last = '';
    const serving = async () => {
      const res = await client.as(device, 'GET', '/api/v1/me', { unchecked: true });
      last = `${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
      return res.status === 200;
    };
    try {
      await pause(300);
      // 1. Every backend killed, as a failover or an operator's pg_terminate_backend does.
      const admin = new pg.Client({ connectionString: databaseUrl() });
      await admin.connect();
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where pid <> pg_backend_pid() and backend_type = $1', ['client backend']);
      await admin.end();
      await until(serving, 5000, 'service after the backends were killed', () => last);

      // 2. PostgreSQL stops: readiness says 503 on every node; then it starts again.
      pgCtlRun('-m', 'fast', 'stop');
      for (const node of nodes) assert.equal((await fetch(`http://${node.url}/health/ready`)).status, 503);
      await pause(1000);
      startPostgres();
      const back = await until(serving, 8000, 'service after PostgreSQL restarted', () => last);
      assert.ok(back < 8000, `served again ${back} ms after PostgreSQL was back`);

      // 3. Redis stops for a while and comes back: nothing is refused meanwhile.
      redis?.kill('SIGKILL');
      const before503 = seen.get('503') ?? 0;
      // Ten seconds, as a Redis restart or failover takes: long past the breaker's first trip.
      await pause(10_000);
      assert.equal(seen.get('503') ?? 0, before503, 'nothing is refused while only Redis is away');
      startRedis();
      await pause(1000);
      await until(serving, 5000, 'service after Redis restarted', () => last);
    } finally {
      running = false;
      await Promise.all(workers);
    }
    assert.deepEqual(wrong, [], `answers other than 200 or 503 + Retry-After: ${JSON.stringify([...seen])}`);
    assert.ok((seen.get('200') ?? 0) > 20, JSON.stringify([...seen]));
    assert.ok((seen.get('503') ?? 0) > 0, `the outage was seen: ${JSON.stringify([...seen])}`);
    // Both nodes are up and ready, and the balancer routes to both again.
    for (const node of nodes) assert.equal((await fetch(`http://${node.url}/health/ready`)).status, 200);
  });
});
