// The migrator's view of PostgreSQL (postgres-introspector.ts): only the service's own schema,
// so other clients creating and dropping schemas in the same database cannot fail a migration.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { allMigrations } from '../../src/modules/index.js';
import { openPostgres } from '../../src/platform/store/db.js';
import { migrateToLatest } from '../../src/platform/store/migrate.js';

const url = process.env.TEST_DATABASE_URL;
const skip = url ? false : 'TEST_DATABASE_URL is not set';

describe('PostgreSQL introspection scoped to our schema [postgres]', { skip }, () => {
  let admin: pg.Client;
  const made: string[] = [];
  async function freshSchema(prefix: string): Promise<string> {
    const schema = `${prefix}_${randomBytes(5).toString('hex')}`;
    await admin.query(`create schema ${schema}`);
    made.push(schema);
    return schema;
  }

  before(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  });
  after(async () => {
    for (const schema of made) await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  });

  it('migrates while other clients create and drop schemas in the same database', async () => {
    // Unscoped introspection read every schema by name and failed with "schema … does not
    // exist" in most of these rounds; the churn is what other suites or services do meanwhile.
    let stop = false;
    const churn = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        while (!stop) {
          const other = `vid_churn_${randomBytes(5).toString('hex')}`;
          await client.query(`create schema ${other}; create table ${other}.t (id serial primary key, a text)`);
          await client.query(`drop schema ${other} cascade`);
        }
      } finally {
        await client.end();
      }
    };
    const churners = [churn(), churn(), churn()];
    try {
      for (let round = 0; round < 8; round++) {
        const schema = await freshSchema('vid_introspect');
        const handle = openPostgres(url!, { schema, poolSize: 2 });
        try {
          const applied = await migrateToLatest(handle.db, schema, allMigrations());
          assert.ok(applied.length > 0);
        } finally {
          await handle.db.destroy();
        }
      }
    } finally {
      stop = true;
      await Promise.all(churners);
    }
  });

  it('sees only its own schema, and Kysely’s tables only when asked', async () => {
    const schema = await freshSchema('vid_introspect');
    const other = await freshSchema('vid_introspect_other');
    await admin.query(`create table ${other}.elsewhere (id int)`);
    await admin.query(`create table ${schema}.things (id serial primary key, label text not null, note text default 'x')`);
    await admin.query(`comment on column ${schema}.things.note is 'free text'`);
    await admin.query(`create table ${schema}.kysely_migration (name text)`);
    const handle = openPostgres(url!, { schema, poolSize: 1 });
    try {
      const introspection = handle.db.introspection;
      assert.deepEqual(await introspection.getSchemas(), [{ name: schema }]);
      const tables = await introspection.getTables();
      assert.deepEqual(tables.map((t) => t.name), ['things']);
      const [things] = tables;
      assert.equal(things!.schema, schema);
      assert.equal(things!.isView, false);
      assert.deepEqual(
        things!.columns.map((c) => [c.name, c.dataType, c.isNullable, c.hasDefaultValue, c.isAutoIncrementing, c.comment]),
        [
          ['id', 'int4', false, true, true, undefined],
          ['label', 'text', false, false, false, undefined],
          ['note', 'text', true, true, false, 'free text'],
        ],
      );
      const withInternal = await introspection.getTables({ withInternalKyselyTables: true });
      assert.deepEqual(withInternal.map((t) => t.name), ['kysely_migration', 'things']);
    } finally {
      await handle.db.destroy();
    }
  });

  it('without a configured schema, looks at current_schema()', async () => {
    const handle = openPostgres(url!, { poolSize: 1 });
    try {
      const { rows } = await handle.pool!.query<{ name: string }>('select current_schema() as name');
      assert.deepEqual(await handle.db.introspection.getSchemas(), rows);
    } finally {
      await handle.db.destroy();
    }
  });
});
