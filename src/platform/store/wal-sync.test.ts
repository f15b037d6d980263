import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { SharedSync, walDurability } from './wal-sync.js';

describe('WAL syncs (decision 005)', () => {
  it('runs one sync at a time; the requests made meanwhile share the next, which starts after it', async () => {
    const started: Array<() => void> = [];
    const shared = new SharedSync(() => new Promise<void>((resolve) => started.push(resolve)));
    const first = shared.request();
    const during = [shared.request(), shared.request(), shared.request()];
    assert.equal(started.length, 1, 'one sync at a time');
    started[0]!();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(started.length, 2, 'the three requests made during the first share the second');
    started[1]!();
    await Promise.all(during);
    await shared.drain();
    assert.equal(started.length, 2);
  });

  it('a failed sync fails its requesters, and the next request tries again', async () => {
    let calls = 0;
    const shared = new SharedSync(async () => {
      calls++;
      if (calls === 1) throw new Error('EIO');
    });
    await assert.rejects(shared.request(), /EIO/);
    await shared.request();
    assert.equal(calls, 2);
  });

  it('puts a file in WAL mode with synchronous=NORMAL and syncs its WAL; an in-memory database keeps FULL and no WAL sync', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vid-wal-'));
    try {
      const sqlite = new SQLite(join(dir, 'db.sqlite'));
      const wal = walDurability(sqlite);
      assert.ok(wal);
      assert.equal(sqlite.pragma('journal_mode', { simple: true }), 'wal');
      assert.equal(sqlite.pragma('synchronous', { simple: true }), 1, 'NORMAL');
      sqlite.exec('create table t (x); insert into t values (1)');
      await wal.sync();
      await wal.close();
      sqlite.close();
      const memory = new SQLite(':memory:');
      assert.equal(walDurability(memory), undefined);
      assert.equal(memory.pragma('synchronous', { simple: true }), 2, 'FULL');
      memory.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
