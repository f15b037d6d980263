import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { GroupCommitSqliteDialect } from './sqlite-group-commit.js';
import { walDurability } from './wal-sync.js';
import type { WalDurability } from './wal-sync.js';

interface Schema {
  items: { id: string; parent: string | null };
}

const dir = mkdtempSync(join(tmpdir(), 'vid-group-commit-'));
let counter = 0;

/** A durability whose syncs, once held, the test completes (or fails) itself. */
function heldSyncs() {
  const waiting: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  let holding = false;
  const durability: WalDurability = {
    sync: () => (holding ? new Promise<void>((resolve, reject) => waiting.push({ resolve, reject })) : Promise.resolve()),
    close: async () => {},
  };
  return {
    durability,
    waiting,
    hold: () => (holding = true),
    /** Completes the held syncs; later ones pass through. */
    release: () => {
      holding = false;
      waiting.splice(0).forEach((w) => w.resolve());
    },
    fail: (error: Error) => waiting.splice(0).forEach((w) => w.reject(error)),
  };
}

/**
 * A fresh file, opened as the service opens it (WAL, synced off the event loop), or with the
 * given durability, plus a second, independent connection to watch what is committed.
 */
async function open(durability?: WalDurability) {
  const file = join(dir, `db-${++counter}.sqlite`);
  const sqlite = new SQLite(file);
  const wal = walDurability(sqlite);
  assert.ok(wal, 'a file on this disk runs in WAL mode');
  sqlite.pragma('foreign_keys = ON');
  const dialect = new GroupCommitSqliteDialect(sqlite, durability ?? wal);
  const db = new Kysely<Schema>({ dialect });
  await sql`create table items (id text primary key, parent text references items (id) deferrable initially deferred)`.execute(db);
  const observer = new SQLite(file, { readonly: true });
  const committed = (id: string) => observer.prepare('select count(*) as n from items where id = ?').get(id) as { n: number };
  return { db, dialect, committed: (id: string) => committed(id).n === 1, close: async () => (observer.close(), await db.destroy()) };
}

const insertIn = (db: Kysely<Schema>, id: string, parent: string | null = null) =>
  db.transaction().execute(async (tx) => {
    await tx.insertInto('items').values({ id, parent }).execute();
  });

describe('SQLite group commit', () => {
  before(() => {});
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('concurrent transactions share commits, and each settles only once another connection can read it', async () => {
    const { db, dialect, committed, close } = await open();
    const before = dialect.stats.commits;
    const seenAtAcknowledgement = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        await insertIn(db, `t${i}`);
        return committed(`t${i}`);
      }),
    );
    assert.deepEqual(seenAtAcknowledgement, Array(50).fill(true));
    const commits = dialect.stats.commits - before;
    assert.ok(commits >= 1 && commits < 10, `50 transactions took ${commits} commits`);
    await close();
  });

  it('a transaction that throws rolls back only its own writes; the others of its batch commit', async () => {
    const { db, committed, close } = await open();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        db.transaction().execute(async (tx) => {
          await tx.insertInto('items').values({ id: `r${i}`, parent: null }).execute();
          await tx.insertInto('items').values({ id: `r${i}-child`, parent: `r${i}` }).execute();
          if (i === 4) throw new Error('changed my mind');
        }),
      ),
    );
    assert.deepEqual(outcomes.map((o) => o.status), outcomes.map((_, i) => (i === 4 ? 'rejected' : 'fulfilled')));
    for (let i = 0; i < 10; i++) {
      assert.equal(committed(`r${i}`), i !== 4);
      assert.equal(committed(`r${i}-child`), i !== 4);
    }
    await close();
  });

  it('a failing statement outside a transaction fails alone; the writes beside it in the batch commit', async () => {
    const { db, committed, close } = await open();
    await insertIn(db, 'taken');
    const outcomes = await Promise.allSettled([
      insertIn(db, 'a'),
      db.insertInto('items').values({ id: 'taken', parent: null }).execute(),
      db.insertInto('items').values({ id: 'b', parent: null }).execute(),
    ]);
    assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.match(String((outcomes[1] as PromiseRejectedResult).reason.code), /SQLITE_CONSTRAINT/);
    assert.ok(committed('a') && committed('b'));
    await close();
  });

  it('a read outside a transaction that could see an uncommitted write settles only after that write commits', async () => {
    const { db, committed, close } = await open();
    const write = insertIn(db, 'pending');
    const rows = await db.selectFrom('items').selectAll().where('id', '=', 'pending').execute();
    // The read saw the write, so the write must be durable by the time the read answers.
    assert.equal(rows.length, 1);
    assert.equal(committed('pending'), true);
    await write;
    // With nothing pending, a read answers from committed data.
    assert.equal((await db.selectFrom('items').selectAll().execute()).length, 1);
    await close();
  });

  it('when the commit itself fails, every unit of the batch fails and nothing of it is kept', async () => {
    const { db, committed, close } = await open();
    // A deferred foreign key is checked at COMMIT: the orphan makes the whole batch's commit fail.
    const outcomes = await Promise.allSettled([insertIn(db, 'good-1'), insertIn(db, 'orphan', 'nobody'), db.insertInto('items').values({ id: 'good-2', parent: null }).execute()]);
    assert.deepEqual(outcomes.map((o) => o.status), ['rejected', 'rejected', 'rejected']);
    for (const o of outcomes) assert.match(String((o as PromiseRejectedResult).reason.code), /SQLITE_CONSTRAINT_FOREIGNKEY/);
    assert.ok(!committed('good-1') && !committed('orphan') && !committed('good-2'));
    // The connection is usable again.
    await insertIn(db, 'after');
    assert.equal(committed('after'), true);
    await close();
  });

  it('a committed batch is acknowledged only once its WAL sync completes, and a read that may have seen it waits too', async () => {
    const held = heldSyncs();
    const { db, committed, close } = await open(held.durability);
    held.hold();
    let acknowledged = false;
    const write = insertIn(db, 'synced').then(() => (acknowledged = true));
    while (held.waiting.length === 0) await new Promise((resolve) => setImmediate(resolve));
    // COMMIT ran (another connection reads the row), but the WAL is not yet on disk.
    assert.equal(committed('synced'), true);
    let read = false;
    const reading = db.selectFrom('items').selectAll().execute().then((rows) => ((read = true), rows));
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(acknowledged, false, 'acknowledged before its sync');
    assert.equal(read, false, 'a read answered with data a power loss could take back');
    // The connection is free meanwhile: the next transaction commits during the sync.
    const next = insertIn(db, 'during-sync');
    while (held.waiting.length < 2) await new Promise((resolve) => setImmediate(resolve));
    held.release();
    await Promise.all([write, next]);
    assert.deepEqual((await reading).map((r) => r.id), ['synced']);
    await close();
  });

  it('a failed WAL sync fails every unit of its batch', async () => {
    const held = heldSyncs();
    const { db, close } = await open(held.durability);
    held.hold();
    const outcomes = Promise.allSettled([insertIn(db, 'lost-1'), db.insertInto('items').values({ id: 'lost-2', parent: null }).execute()]);
    while (held.waiting.length === 0) await new Promise((resolve) => setImmediate(resolve));
    held.fail(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    assert.deepEqual((await outcomes).map((o) => o.status), ['rejected', 'rejected']);
    await close();
  });

  it('readRows answers at once with the connection free, and like any read outside a transaction otherwise', async () => {
    const held = heldSyncs();
    const { db, dialect, close } = await open(held.durability);
    await insertIn(db, 'there');
    const byId = 'select id from items where id = ?';
    assert.deepEqual(await dialect.readRows(byId, ['there']), [{ id: 'there' }]);
    assert.deepEqual(await dialect.readRows(byId, ['nobody']), []);
        await insertIn(db, 'there-too');
    assert.deepEqual(await dialect.readRows('select id from items where id in (?, ?, ?) order by id', ['there', 'there-too', 'nobody']), [{ id: 'there' }, { id: 'there-too' }]);
    await assert.rejects(dialect.readRows('delete from items', []), /read-only/);
    // While the newest commit is being synced, an answer that may show it waits for the sync.
    held.hold();
    const write = insertIn(db, 'fresh');
    while (held.waiting.length === 0) await new Promise((resolve) => setImmediate(resolve));
    let answered = false;
    const reading = dialect.readRows<{ id: string }>(byId, ['fresh']).then((rows) => ((answered = true), rows[0]));
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(answered, false, 'answered with a write a power loss could take back');
    held.release();
    await write;
    assert.deepEqual(await reading, { id: 'fresh' });
    // While a transaction holds the connection, it waits its turn and sees only what committed.
    let release!: () => void;
    const holding = db.transaction().execute(async (tx) => {
      await tx.insertInto('items').values({ id: 'in-unit', parent: null }).execute();
      await new Promise<void>((resolve) => (release = resolve));
      throw new Error('rolled back');
    });
    while (!release) await new Promise((resolve) => setImmediate(resolve));
    const duringUnit = dialect.readRows(byId, ['in-unit']).then((rows) => rows[0]);
    release();
    await assert.rejects(holding, /rolled back/);
    assert.equal(await duringUnit, undefined, 'a rolled-back write was read');
    await close();
  });

  it('destroying the database commits the open batch first', async () => {
    const { db, committed, close } = await open();
    const write = insertIn(db, 'last');
    await db.destroy();
    await write;
    assert.equal(committed('last'), true);
    await close().catch(() => {});
  });

  it('a process killed at any moment keeps every write it acknowledged', async () => {
    const file = join(dir, 'crash.sqlite');
    const writer = fileURLToPath(new URL('./sqlite-group-commit.crash-writer.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', writer, file], { stdio: ['ignore', 'pipe', 'inherit'] });
    const acknowledged: string[] = [];
    let buffer = '';
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        const lines = buffer.split('\n');
        buffer = lines.pop()!;
        acknowledged.push(...lines.filter(Boolean));
        // Killed mid-stream, with writes in flight.
        if (acknowledged.length >= 300 && !child.killed) child.kill('SIGKILL');
      });
      child.on('exit', () => resolve());
    });
    assert.ok(acknowledged.length >= 300, `the writer acknowledged ${acknowledged.length} writes`);
    const reopened = new SQLite(file, { readonly: true });
    const kept = new Set((reopened.prepare('select id from items').all() as Array<{ id: string }>).map((r) => r.id));
    reopened.close();
    const lost = acknowledged.filter((id) => !kept.has(id));
    assert.deepEqual(lost, []);
  });
});
