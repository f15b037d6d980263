// `npm run purge` (PRODUCT §8): the operator's one-off purge over the configured database.
import { commandArgs } from '../helpers/commands.js';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { projectRoot } from '../../src/platform/paths.js';

const run = promisify(execFile);

describe('npm run purge [sqlite]', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vid-purge-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const purge = () =>
    run(process.execPath, commandArgs('purge'), { cwd: projectRoot, env: { ...process.env, SQLITE_PATH: join(dir, 'vid.sqlite'), LOG_LEVEL: 'warn' } });

  it('migrates an empty database, then purges the accounts whose grace is over', async () => {
    assert.match((await purge()).stdout, /purged 0 account\(s\), freed 0 username\(s\)/);
    const db = new Database(join(dir, 'vid.sqlite'));
    const insert = db.prepare(`insert into accounts (id, username, username_canonical, username_skeleton, user_handle, display_name, region, version, created_at, deleted_at, purge_at)
      values (?, ?, ?, ?, ?, 'Someone', 'eu', 2, 0, ?, ?)`);
    insert.run('acc_due', 'due', 'due', 'due', 'h1', Date.now() - 40 * 86_400_000, Date.now() - 10 * 86_400_000);
    insert.run('acc_grace', 'grace', 'grace', 'grace', 'h2', Date.now(), Date.now() + 30 * 86_400_000);
    db.close();
    assert.match((await purge()).stdout, /purged 1 account\(s\)/);
    const after = new Database(join(dir, 'vid.sqlite'), { readonly: true });
    const rows = after.prepare('select id, display_name, purged_at from accounts order by id').all() as Array<{ id: string; display_name: string | null; purged_at: number | null }>;
    after.close();
    assert.deepEqual(rows.map((r) => [r.id, r.display_name, r.purged_at !== null]), [['acc_due', null, true], ['acc_grace', 'Someone', false]]);
  });
});
