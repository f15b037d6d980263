// preparedQuery: built and compiled once, bound per call; on SQLite's own Kysely instance it
// reads straight from the statement (readDirectlyOn), inside a transaction through Kysely.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
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
});
