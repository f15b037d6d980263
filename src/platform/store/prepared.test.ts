// preparedQuery: built and compiled once, bound per call; on SQLite's own Kysely instance it
// reads straight from the statement (readDirectlyOn), inside a transaction through Kysely.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { openSqlite } from './db.js';
import { preparedQuery, readDirectlyOn } from './prepared.js';

interface Schema {
  items: { id: string; owner: string };
}

const dir = mkdtempSync(join(tmpdir(), 'vid-prepared-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function openItems(name: string) {
  const handle = openSqlite(join(dir, `${name}.sqlite`));
  const db = handle.db as Kysely<Schema>;
  await db.schema.createTable('items').addColumn('id', 'text', (c) => c.primaryKey()).addColumn('owner', 'text', (c) => c.notNull()).execute();
  await db.insertInto('items').values([{ id: 'a', owner: 'ann' }, { id: 'b', owner: 'ann' }, { id: 'c', owner: 'bob' }]).execute();
  return db;
}

const byOwner = (db: Kysely<Schema>) =>
  preparedQuery(db, (owner: string, after: string) => db.selectFrom('items').select(['id']).where('owner', '=', owner).where('id', '>', after).orderBy('id'), 2);

describe('preparedQuery', () => {
  it('binds each call\'s values in their places, on the database and inside a transaction', async () => {
    const db = await openItems('binds');
    const items = byOwner(db);
    assert.deepEqual(await items('ann', ''), [{ id: 'a' }, { id: 'b' }]);
    assert.deepEqual(await items('ann', 'a'), [{ id: 'b' }]);
    assert.deepEqual(await items('bob', ''), [{ id: 'c' }]);
    // A transaction's own writes are visible to its prepared queries; a read outside it waits for
    // the one connection the transaction holds, and sees what it committed.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const insertedYet = new Promise<void>((resolve) => (inserted = resolve));
    const inside = db.transaction().execute(async (tx) => {
      await tx.insertInto('items').values({ id: 'd', owner: 'bob' }).execute();
      const seen = await byOwner(tx)('bob', '');
      inserted();
      await released;
      return seen;
    });
    await insertedYet;
    const outside = items('bob', '');
    release();
    assert.deepEqual(await inside, [{ id: 'c' }, { id: 'd' }]);
    assert.deepEqual(await outside, [{ id: 'c' }, { id: 'd' }]);
    await db.destroy();
  });

  it('reads through the registered direct reader on its database only, with the compiled SQL and bound values', async () => {
    const db = await openItems('direct');
    const calls: Array<{ sql: string; parameters: readonly unknown[] }> = [];
    readDirectlyOn(db, async <R>(sql: string, parameters: readonly unknown[]) => {
      calls.push({ sql, parameters });
      return [{ id: 'from-reader' }] as R[];
    });
    assert.deepEqual(await byOwner(db)('ann', 'a'), [{ id: 'from-reader' }]);
    assert.equal(calls.length, 1);
    assert.match(calls[0]!.sql, /^select "id" from "items" where "owner" = \? and "id" > \? order by "id"$/);
    assert.deepEqual(calls[0]!.parameters, ['ann', 'a']);
    // A transaction is another Kysely instance: Kysely runs its statements.
    assert.deepEqual(await db.transaction().execute((tx) => byOwner(tx)('ann', 'a')), [{ id: 'b' }]);
    assert.equal(calls.length, 1);
    await db.destroy();
  });

  it('binds named parameters by name, each as often as the statement uses it, on the database and inside a transaction', async () => {
    const db = await openItems('named');
    // A write on the database itself goes through Kysely, never the direct reader (reads only).
    readDirectlyOn(db, async () => assert.fail('a write reached the direct reader'));
    const rename = preparedQuery(db, (p: { from: string; to: string }) =>
      sql<{ id: string }>`update items set owner = ${p.to} where owner = ${p.from} and id <> ${p.to} returning id`);
    assert.deepEqual(await rename({ from: 'bob', to: 'cy' }), [{ id: 'c' }]);
    const moved = await db.transaction().execute(async (tx) => {
      const rows = await rename({ to: 'dee', from: 'ann' }, tx);
      return { rows, inside: await tx.selectFrom('items').select('id').where('owner', '=', 'dee').orderBy('id').execute() };
    });
    assert.deepEqual(moved.rows.map((r) => r.id).sort(), ['a', 'b']);
    assert.deepEqual(moved.inside, [{ id: 'a' }, { id: 'b' }]);
    // Built with the query builder too; a constant of the query stays in its place.
    const count = preparedQuery(db, (p: { owner: string }) =>
      db.selectFrom('items').select((eb) => eb.fn.countAll<number>().as('n')).where('owner', '=', p.owner).where('id', '<>', 'zzz'));
    assert.deepEqual(await db.transaction().execute((tx) => count({ owner: 'dee' }, tx)), [{ n: 2 }]);
    await db.destroy();
  });

  it('refuses a named parameter that is not a bound value', async () => {
    const db = await openItems('refused');
    const byColumn = preparedQuery(db, (p: { column: string }) => sql`select ${sql.ref(p.column)} from items`);
    await assert.rejects(byColumn({ column: 'id' }), /written into the SQL text/);
    const unused = preparedQuery(db, (p: { owner: string }) => db.selectFrom('items').select('id').where('owner', '=', p.owner.length > 0 ? 'ann' : 'bob'));
    await assert.rejects(unused({ owner: 'ann' }), /parameter owner is not used/);
    await db.destroy();
  });

  it('runs on the database itself as a PostgreSQL named statement with its values in order; inside a transaction, through Kysely', async () => {
    const db = await openItems('named-statement');
    const calls: Array<{ name: string; text: string; values: unknown[] }> = [];
    const pool = {
      async query(config: { name: string; text: string; values: unknown[] }) {
        calls.push(config);
        return { rows: [{ id: 'from-pool' }] };
      },
    };
    const mine = preparedQuery(db, (p: { owner: string; after: string }) =>
      sql<{ id: string }>`select id from items where owner = ${p.owner} and id > ${p.after} and owner <> ${p.after} order by id`, { name: 'vid-test-items', pool });
    assert.deepEqual(await mine({ after: 'a', owner: 'ann' }), [{ id: 'from-pool' }]);
    assert.deepEqual(calls, [{ name: 'vid-test-items', text: 'select id from items where owner = ? and id > ? and owner <> ? order by id', values: ['ann', 'a', 'a'] }]);
    assert.deepEqual(await db.transaction().execute((tx) => mine({ after: 'a', owner: 'ann' }, tx)), [{ id: 'b' }]);
    assert.equal(calls.length, 1);
    await db.destroy();
  });
});
