// docs/operations.md's PostgreSQL dump and restore, run as the superuser an operator restores
// with (issue: the restored tables belonged to the superuser and the nodes, connecting as the
// service's own role, failed with "permission denied"). The recipe's commands, word for word
// but for names: pg_dump as the superuser, createdb owned by the service's role, pg_restore
// with --no-owner --role; then a node connecting as that role migrates, signs someone up and
// reads what the dump held.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { createManualClock } from '../../src/platform/clock.js';
import { allMigrations } from '../../src/modules/index.js';
import { openPostgres } from '../../src/platform/store/db.js';
import { migrateToLatest } from '../../src/platform/store/migrate.js';
import { createStore } from '../../src/platform/store/store.js';
import { PUBLIC_ORIGIN, testConfig } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { TestClient, uniqueName } from '../helpers/client.js';
import { createContractChecker } from '../helpers/contract.js';

const run = promisify(execFile);
const postgres = backends.find((b) => b.name === 'postgres')!;
const url = process.env.TEST_DATABASE_URL as string;

describe('the PostgreSQL dump and restore recipe, run as a superuser [postgres]', { skip: postgres.skip }, () => {
  const suffix = randomBytes(4).toString('hex');
  const role = `vid_recipe_${suffix}`;
  const source = `vid_recipe_src_${suffix}`;
  const restored = `vid_recipe_dst_${suffix}`;
  const dir = mkdtempSync(join(tmpdir(), 'vid-pgdump-'));
  let admin: pg.Client;
  const as = (database: string, user?: string) => {
    const target = new URL(url);
    target.pathname = `/${database}`;
    if (user) target.username = user;
    return target.toString();
  };

  before(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create role ${role} login`);
    await admin.query(`create database ${source} owner ${role}`);
  });
  after(async () => {
    for (const database of [source, restored]) await admin.query(`drop database if exists ${database} with (force)`);
    await admin.query(`drop role if exists ${role}`);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  });

  it('restores into a database the nodes, connecting as the service role, start on and write to', async () => {
    // The service made its tables as its own role.
    const first = createStore(openPostgres(as(source, role)));
    await migrateToLatest(first.handle.db, first.handle.schema, allMigrations());
    await first.close();

    const dump = join(dir, 'vid.dump');
    await run('pg_dump', ['--format=custom', `--file=${dump}`, as(source)]);
    await run('createdb', [`--maintenance-db=${as('postgres')}`, `--owner=${role}`, restored]);
    await run('pg_restore', [`--dbname=${as(restored)}`, '--no-owner', `--role=${role}`, dump]);

    const store = createStore(openPostgres(as(restored, role)));
    const clock = createManualClock(Date.now());
    const { app } = await buildApp({ config: testConfig(as(restored, role)), store, clock, logger: false });
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const client = new TestClient(baseUrl, PUBLIC_ORIGIN, createContractChecker(JSON.parse(JSON.stringify(app.swagger()))), clock.now);
      const device = await client.signUp(uniqueName('restored'));
      const me = await client.as(device, 'GET', '/api/v1/me');
      assert.equal(me.status, 200, JSON.stringify(me.body));
      const patched = await client.as(device, 'PATCH', '/api/v1/me', { body: { display_name: 'Restored' }, headers: { 'if-match': '*' } });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
    } finally {
      await app.close();
      await store.close();
    }
  });
});
