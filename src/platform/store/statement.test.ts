// statement(): built and compiled once per dialect, bound by name per call; on the store's own
// Kysely instance it takes the fast lane (SQLite's direct reader, PostgreSQL's named
// statements), inside a transaction it runs through Kysely.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { openSqlite } from './db.js';
import { runDirectlyOn, statement } from './statement.js';
import type { Param } from './statement.js';

interface Schema {
  items: { id: string; owner: string };
}

const dir = mkdtempSync(join(tmpdir(), 'vid-statement-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function openItems(name: string) {
  const handle = openSqlite(join(dir, `${name}.sqlite`));
  const db = handle.db as Kysely<Schema>;
  await db.schema.createTable('items').addColumn('id', 'text', (c) => c.primaryKey()).addColumn('owner', 'text', (c) => c.notNull()).execute();
  await db.insertInto('items').values([{ id: 'a', owner: 'ann' }, { id: 'b', owner: 'ann' }, { id: 'c', owner: 'bob' }]).execute();
  return db;
}

let builds = 0;
const byOwner = statement('test items by owner', (db: Kysely<Schema>, p: Param<{ owner: string; after: string }>) => {
  builds++;
  return db.selectFrom('items').select(['id']).where('owner', '=', p('owner')).where('id', '>', p('after')).orderBy('id');
});

describe('statement', () => {
  it('binds each call\'s values by name, on the database and inside a transaction, built once for every database of the dialect', async () => {
    const db = await openItems('binds');
    assert.deepEqual(await byOwner.all(db, { owner: 'ann', after: '' }), [{ id: 'a' }, { id: 'b' }]);
    assert.deepEqual(await byOwner.all(db, { after: 'a', owner: 'ann' }), [{ id: 'b' }]);
    assert.deepEqual(await byOwner.first(db, { owner: 'bob', after: '' }), { id: 'c' });
    // A transaction's own writes are visible to its statements; a read outside it waits for
    // the one connection the transaction holds, and sees what it committed.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const insertedYet = new Promise<void>((resolve) => (inserted = resolve));
    const inside = db.transaction().execute(async (tx) => {
      await tx.insertInto('items').values({ id: 'd', owner: 'bob' }).execute();
      const seen = await byOwner.all(tx, { owner: 'bob', after: '' });
      inserted();
      await released;
      return seen;
    });
    await insertedYet;
    const outside = byOwner.all(db, { owner: 'bob', after: '' });
    release();
    assert.deepEqual(await inside, [{ id: 'c' }, { id: 'd' }]);
    assert.deepEqual(await outside, [{ id: 'c' }, { id: 'd' }]);
    const other = await openItems('binds-other');
    assert.deepEqual(await byOwner.all(other, { owner: 'bob', after: '' }), [{ id: 'c' }]);
    assert.equal(builds, 1, 'built once for every SQLite database and transaction of the process');
    await db.destroy();
    await other.destroy();
  });

  it('reads through the registered direct reader on its database only, with the compiled SQL and bound values', async () => {
    const db = await openItems('direct');
    const calls: Array<{ sql: string; parameters: readonly unknown[] }> = [];
    runDirectlyOn(db, {
      read: async <R>(sql: string, parameters: readonly unknown[]) => {
        calls.push({ sql, parameters });
        return [{ id: 'from-reader' }] as R[];
      },
    });
    assert.deepEqual(await byOwner.all(db, { owner: 'ann', after: 'a' }), [{ id: 'from-reader' }]);
    assert.equal(calls.length, 1);
    assert.match(calls[0]!.sql, /^select "id" from "items" where "owner" = \? and "id" > \? order by "id"$/);
    assert.deepEqual(calls[0]!.parameters, ['ann', 'a']);
    // A transaction is another Kysely instance: Kysely runs its statements.
    assert.deepEqual(await db.transaction().execute((tx) => byOwner.all(tx, { owner: 'ann', after: 'a' })), [{ id: 'b' }]);
    assert.equal(calls.length, 1);
    await db.destroy();
  });

  it('binds a parameter as often as the statement uses it, keeps the statement\'s own constants, and sends writes past the direct reader', async () => {
    const db = await openItems('named');
    runDirectlyOn(db, { read: async () => assert.fail('a write reached the direct reader') });
    const rename = statement('test rename owner', (_db: Kysely<Schema>, p: Param<{ from: string; to: string }>) =>
      sql<{ id: string }>`update items set owner = ${p('to')} where owner = ${p('from')} and id <> ${p('to')} returning id`);
    assert.deepEqual(await rename.all(db, { from: 'bob', to: 'cy' }), [{ id: 'c' }]);
    const moved = await db.transaction().execute(async (tx) => {
      const rows = await rename.all(tx, { to: 'dee', from: 'ann' });
      return { rows, inside: await tx.selectFrom('items').select('id').where('owner', '=', 'dee').orderBy('id').execute() };
    });
    assert.deepEqual(moved.rows.map((r) => r.id).sort(), ['a', 'b']);
    assert.deepEqual(moved.inside, [{ id: 'a' }, { id: 'b' }]);
    const count = statement('test count owner', (db: Kysely<Schema>, p: Param<{ owner: string }>) =>
      db.selectFrom('items').select((eb) => eb.fn.countAll<number>().as('n')).where('owner', '=', p('owner')).where('id', '<>', 'zzz'));
    assert.deepEqual(await db.transaction().execute((tx) => count.all(tx, { owner: 'dee' })), [{ n: 2 }]);
    await db.destroy();
  });

  it('refuses a parameter that is not a bound value', async () => {
    const db = await openItems('refused');
    const byColumn = statement('test by column', (_db: Kysely<Schema>, p: Param<{ column: string }>) => sql`select ${sql.raw(String(p('column')))} from items`);
    await assert.rejects(byColumn.all(db, { column: 'id' }), /written into the SQL text/);
    const unused = statement('test unused', (db: Kysely<Schema>, p: Param<{ owner: string }>) => db.selectFrom('items').select('id').where('owner', '=', p('owner') ? 'ann' : 'bob'));
    await assert.rejects(unused.all(db, { owner: 'ann' }), /parameter owner is not used/);
    await db.destroy();
  });

  it('runs on the database itself as a PostgreSQL named statement with its values in order; inside a transaction, through Kysely', async () => {
    const db = await openItems('named-statement');
    const calls: Array<{ name: string; text: string; values: unknown[] }> = [];
    runDirectlyOn(db, {
      pool: {
        async query(config: { name: string; text: string; values: unknown[] }) {
          calls.push(config);
          return { rows: [{ id: 'from-pool' }] };
        },
      },
    });
    const mine = statement('test items', (_db: Kysely<Schema>, p: Param<{ owner: string; after: string }>) =>
      sql<{ id: string }>`select id from items where owner = ${p('owner')} and id > ${p('after')} and owner <> ${p('after')} order by id`);
    assert.deepEqual(await mine.all(db, { after: 'a', owner: 'ann' }), [{ id: 'from-pool' }]);
    assert.equal(calls.length, 1);
    assert.match(calls[0]!.name, /^vid test items [\w-]{12}$/);
    assert.deepEqual({ text: calls[0]!.text, values: calls[0]!.values }, { text: 'select id from items where owner = ? and id > ? and owner <> ? order by id', values: ['ann', 'a', 'a'] });
    assert.deepEqual(await db.transaction().execute((tx) => mine.all(tx, { after: 'a', owner: 'ann' })), [{ id: 'b' }]);
    assert.equal(calls.length, 1);
    await db.destroy();
  });
});
