// Backup and restore (decision 100): `npm run backup` copies the live SQLite database with
// SQLite's online backup API while the service, in its own process as `npm start` runs it,
// keeps acknowledging writes; every write acknowledged before the backup began is in the copy.
// `npm run restore` refuses while the service has the database, then restores, keeps what it
// replaced, and the service starts on the restored copy with every migration.
import { commandArgs } from '../helpers/commands.js';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { allMigrations } from '../../src/modules/index.js';
import { checkDatabaseFile } from '../../src/platform/store/sqlite-backup.js';
import { TEST_SECRET_KEY } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { serveDatabase, startServerProcess } from '../helpers/cli.js';
import type { CliResult } from '../helpers/cli.js';
import { TestClient, uniqueName } from '../helpers/client.js';
import { createContractChecker } from '../helpers/contract.js';
import { PUBLIC_ORIGIN } from '../helpers/app.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { projectRoot } from '../../src/platform/paths.js';

const run = promisify(execFile);

async function command(script: string, args: string[], env: Record<string, string>): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...commandArgs(script), ...args], { cwd: projectRoot, env: { ...process.env, DATABASE_URL: '', ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

async function clientFor(baseUrl: string): Promise<TestClient> {
  const document = await (await fetch(`${baseUrl}/api/v1/openapi.json`)).json();
  return new TestClient(baseUrl, PUBLIC_ORIGIN, createContractChecker(document), Date.now);
}

const sqlite = backends.find((b) => b.name === 'sqlite')!;
const postgres = backends.find((b) => b.name === 'postgres')!;

describe('npm run backup and restore [sqlite]', { skip: sqlite.skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'vid-backup-'));
  const env = { SQLITE_PATH: join(dir, 'data', 'vid.sqlite'), SECRET_KEY: TEST_SECRET_KEY };
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('backs up during a stream of acknowledged writes; the restored copy holds every one acknowledged before it began', async () => {
    let server = await startServerProcess(env);
    try {
      let client = await clientFor(server.baseUrl);
      const alice = await client.signUp(uniqueName('alice'));
      const acknowledged: string[] = [];
      let writing = true;
      let failures = 0;
      const writer = (async () => {
        for (let i = 0; writing && i < 150; i++) {
          const res = await client.as(alice, 'POST', '/api/v1/me/fields', { body: { type: 'email', value: `n${i}@example.org` }, headers: { 'idempotency-key': crypto.randomUUID() } });
          if (res.status === 201) acknowledged.push(res.body.id);
          else failures++;
        }
      })();
      while (acknowledged.length < 10) await new Promise((resolve) => setTimeout(resolve, 5));
      const beforeBackup = [...acknowledged];
      const backupFile = join(dir, 'vid-backup.sqlite');
      const backup = await command('backup', [backupFile], env);
      const duringOrAfter = acknowledged.length;
      writing = false;
      await writer;
      assert.equal(backup.code, 0, backup.stderr);
      assert.equal(failures, 0, 'the service refused writes during the backup');
      assert.match(backup.stdout, /backed up .* migrations/);
      assert.match(backup.stdout, /SECRET_KEY/);
      assert.ok(duringOrAfter > beforeBackup.length, 'writes went on while the backup ran');
      assert.deepEqual(readdirSync(dir).filter((name) => name.includes('partial')), [], 'no partial file is left behind');

      // The database, its side files and the backup are the service user's alone (0600).
      for (const name of readdirSync(join(dir, 'data')).filter((name) => name.includes('.sqlite'))) {
        assert.equal(statSync(join(dir, 'data', name)).mode & 0o077, 0, `data/${name} is readable by others`);
      }
      assert.equal(statSync(backupFile).mode & 0o777, 0o600, 'the backup is readable by others');
      // A directory that is not there: one line saying so, no stack trace.
      const nowhere = await command('backup', [join(dir, 'no-such-dir', 'b.sqlite')], env);
      assert.equal(nowhere.code, 1);
      assert.match(nowhere.stderr.trim(), /^there is no directory .*no-such-dir to write the backup into; create it first \(mkdir -p .*\)$/);

      // A second backup to the same name needs --force.
      const again = await command('backup', [backupFile], env);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /--force/);

      // Restore refuses while the service has the database.
      const refused = await command('restore', [backupFile], env);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /in use by the VID service/);

      assert.equal(await server.stop(), 0);
      const restored = await command('restore', [backupFile], env);
      assert.equal(restored.code, 0, restored.stderr);
      assert.match(restored.stdout, /kept as .*before-restore-/);
      const kept = readdirSync(join(dir, 'data')).filter((name) => name.startsWith('vid.sqlite.before-restore-'));
      assert.equal(kept.length, 1);
      assert.equal(statSync(join(dir, 'data', kept[0]!)).mode & 0o077, 0, 'the database a restore replaced is readable by others');
      assert.deepEqual(checkDatabaseFile(env.SQLITE_PATH).migrations, Object.keys(allMigrations()).sort());

      // The service starts on the restored copy; the session is in it too.
      server = await startServerProcess(env);
      client = await clientFor(server.baseUrl);
      const res = await client.as(alice, 'GET', '/api/v1/me/fields?limit=200');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const restoredIds = new Set((res.body.data as Array<{ id: string }>).map((field) => field.id));
      const missing = beforeBackup.filter((id) => !restoredIds.has(id));
      assert.deepEqual(missing, [], 'writes acknowledged before the backup began are missing');
    } finally {
      await server.stop();
    }
  });

  it('refuses a file that is not a VID database, and a second service on the same file', async () => {
    const junk = join(dir, 'junk.sqlite');
    writeFileSync(junk, 'not a database at all');
    const refused = await command('restore', [junk], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /restore failed/);
    assert.ok(existsSync(env.SQLITE_PATH));

    const server = await startServerProcess(env);
    try {
      await assert.rejects(startServerProcess(env), /in use by the VID service/);
    } finally {
      await server.stop();
    }
  });
});

describe('npm run backup [postgres]', { skip: postgres.skip }, () => {
  it('points to pg_dump and point-in-time recovery instead', async () => {
    const served = await serveDatabase(postgres);
    try {
      for (const script of ['backup', 'restore']) {
        const res = await served.cli(script, [join(served.dir, 'x.sqlite')]);
        assert.equal(res.code, 2);
        assert.match(res.stderr, /pg_(dump|restore)/);
        assert.match(res.stderr, /docs\/operations\.md/);
      }
    } finally {
      await served.cleanup();
    }
  });
});
