import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bundleServer } from '../../scripts/bundle-server.js';
import { projectRoot } from '../../src/platform/paths.js';
import { PUBLIC_ORIGIN } from '../helpers/app.js';
import { TestClient, uniqueName } from '../helpers/client.js';
import { createContractChecker } from '../helpers/contract.js';

/**
 * `npm start` runs the bundled server (dist/server.js, decision 120), not the sources the other
 * suites import: this builds the bundle the same way and checks that it starts on the SQLite
 * default, finds its data files and lazily loaded packages, signs a person up, serves the web app
 * and its API with the same contract, and stops cleanly.
 */
describe('the bundled server (npm start)', () => {
  // Inside the project, so the bundle finds package.json, data/ and node_modules as dist/ does.
  mkdirSync(join(projectRoot, 'build'), { recursive: true });
  const dir = mkdtempSync(join(projectRoot, 'build', 'bundle-test-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'vid-bundle-'));
  let child: ReturnType<typeof spawn>;
  let baseUrl: string;
  let exited: Promise<number | null>;

  before(async () => {
    const entry = await bundleServer(join(dir, 'server.js'));
    child = spawn(process.execPath, ['--max-semi-space-size=4', '--heap-growing-percent=50', entry], {
      cwd: projectRoot,
      env: { ...process.env, MALLOC_ARENA_MAX: '2', PUBLIC_ORIGIN, PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: join(dataDir, 'vid.sqlite'), LOG_LEVEL: 'info', DATABASE_URL: '', REDIS_URL: '', DRAIN_DELAY_S: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    exited = new Promise((resolve) => child.once('exit', resolve));
    const port = await new Promise<number>((resolve, reject) => {
      let output = '';
      const read = (chunk: Buffer) => {
        output += chunk;
        const match = /listening on 127\.0\.0\.1:(\d+)/.exec(output);
        if (match) resolve(Number(match[1]));
      };
      child.stdout!.on('data', read);
      child.stderr!.on('data', read);
      child.once('exit', (code) => reject(new Error(`the bundled server exited with ${code}: ${output}`)));
    });
    baseUrl = `http://127.0.0.1:${port}`;
  });

  after(() => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('signs up with a passkey, reads /me with DPoP, and answers within its own contract', async () => {
    const document = await (await fetch(`${baseUrl}/api/v1/openapi.json`)).json();
    assert.equal(document.openapi, '3.1.0');
    const client = new TestClient(baseUrl, PUBLIC_ORIGIN, createContractChecker(document), Date.now);
    const name = uniqueName('bundled');
    const device = await client.signUp(name);
    const me = await client.as(device, 'GET', '/api/v1/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.username, name);
    // Lazily loaded data: the phone metadata (libphonenumber-js) and the country list.
    const field = await client.as(device, 'POST', '/api/v1/me/fields', {
      body: { type: 'phone', value: '030 22732152', country: 'de' },
      headers: { 'idempotency-key': crypto.randomUUID() },
    });
    assert.equal(field.status, 201, JSON.stringify(field.body));
    assert.equal(field.body.value, '+493022732152');
    // A refusal is problem+json from the same catalogue.
    const taken = await client.call('POST', '/api/v1/auth/username/check', { body: { username: name } });
    assert.equal(taken.status, 200);
    assert.equal(taken.body.available, false);
  });

  it('serves the web app and its security headers', async () => {
    const page = await fetch(`${baseUrl}/contacts`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/);
  });

  it('on SIGTERM says 503 on readiness for DRAIN_DELAY_S while still serving, then closes the port and exits 0', async () => {
    const signalled = Date.now();
    child.kill('SIGTERM');
    // The balancer's health check sees the node leave before its port closes.
    let ready = await fetch(`${baseUrl}/health/ready`);
    for (let i = 0; ready.status === 200 && i < 20; i++) ready = await fetch(`${baseUrl}/health/ready`);
    assert.equal(ready.status, 503);
    assert.equal((await ready.json()).code, 'shutting_down');
    assert.ok(ready.headers.get('retry-after'));
    // Requests already routed to it are still answered meanwhile.
    assert.equal((await fetch(`${baseUrl}/health/live`)).status, 200);
    assert.equal((await fetch(`${baseUrl}/api/v1/field-types`)).status, 200);
    assert.equal(await exited, 0);
    assert.ok(Date.now() - signalled >= 900, 'the port stayed open for the drain delay');
  });
});
