import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { claimSqlite, currentOwner, ownerFile, SqliteInUse } from './sqlite-owner.js';

describe('SQLite file ownership (decision 100)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vid-owner-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const database = join(dir, 'vid.sqlite');
  const record = (pid: number, host = hostname()) => writeFileSync(ownerFile(database), JSON.stringify({ pid, host, role: 'the VID service', since: '2026-01-01T00:00:00.000Z' }));

  it('claims, refuses a second claim by a live process, and releases', () => {
    const claim = claimSqlite(database, 'the VID service');
    assert.ok(existsSync(ownerFile(database)));
    // A record of this very process is not "someone else": pretend another live pid holds it.
    record(process.ppid);
    assert.throws(() => claimSqlite(database, 'a restore'), (error: unknown) => error instanceof SqliteInUse && /in use by the VID service/.test(error.message));
    claim.release();
    assert.ok(!existsSync(ownerFile(database)));
  });

  it('takes over a record whose process is gone (a crash)', () => {
    const exited = spawnSync(process.execPath, ['-e', '0']).pid!;
    record(exited);
    assert.equal(currentOwner(database), undefined);
    claimSqlite(database, 'a restore').release();
  });

  it('refuses a record from another host, naming the file to remove', () => {
    record(1, 'some-other-host');
    assert.throws(() => claimSqlite(database, 'a restore'), (error: unknown) => error instanceof SqliteInUse && error.message.includes(ownerFile(database)));
    rmSync(ownerFile(database));
  });
});
