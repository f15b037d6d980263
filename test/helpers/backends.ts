import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createStore } from '../../src/platform/store/store.js';
import type { Store } from '../../src/platform/store/store.js';
import { openPostgres, openSqlite } from '../../src/platform/store/db.js';
import { allMigrations } from '../../src/modules/index.js';
import { migrateToLatest } from '../../src/platform/store/migrate.js';

/**
 * The database backends every store and HTTP suite runs against. SQLite always; PostgreSQL
 * when TEST_DATABASE_URL is set (otherwise its suites are reported as skipped, and .ci/run
 * fails on a skip). VID_TEST_BACKEND=sqlite|postgres narrows a run to one.
 */
export interface TestBackend {
  name: 'sqlite' | 'postgres';
  skip: string | false;
  /** A fresh, migrated, isolated database. */
  open(): Promise<{ store: Store; databaseUrl?: string; schema?: string; file?: string; cleanup(): Promise<void> }>;
}

const only = process.env.VID_TEST_BACKEND;
const postgresUrl = process.env.TEST_DATABASE_URL;

const sqlite: TestBackend = {
  name: 'sqlite',
  skip: only && only !== 'sqlite' ? 'VID_TEST_BACKEND excludes sqlite' : false,
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'vid-test-'));
    const file = join(dir, 'vid.sqlite');
    const store = createStore(openSqlite(file));
    await migrateToLatest(store.handle.db, store.handle.schema, allMigrations());
    return {
      store,
      file,
      async cleanup() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

const postgres: TestBackend = {
  name: 'postgres',
  skip: only && only !== 'postgres' ? 'VID_TEST_BACKEND excludes postgres' : postgresUrl ? false : 'TEST_DATABASE_URL is not set',
  async open() {
    // Each suite gets its own schema, so suites run in parallel on one database.
    const schema = `vid_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    const store = createStore(openPostgres(postgresUrl as string, { schema, poolSize: 5 }));
    try {
      await migrateToLatest(store.handle.db, store.handle.schema, allMigrations());
    } catch (error) {
      await store.close();
      await dropSchema(schema);
      throw error;
    }
    return {
      store,
      databaseUrl: postgresUrl,
      schema,
      async cleanup() {
        await store.close();
        await dropSchema(schema);
      },
    };
  },
};

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  await client.query(`drop schema if exists ${schema} cascade`);
  await client.end();
}

export const backends: TestBackend[] = [sqlite, postgres];
