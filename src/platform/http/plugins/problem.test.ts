// The problem plugin's last line of defence: a foreign key the database refuses (a row the
// request names was deleted by a concurrent request) is a 409 refusal, never a 500, whichever
// driver raised it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Fastify from 'fastify';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { openPostgres, openSqlite } from '../../store/db.js';
import type { DatabaseHandle } from '../../store/db.js';
import { problemPlugin } from './problem.js';

const dir = mkdtempSync(join(tmpdir(), 'vid-problem-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const postgresUrl = process.env.TEST_DATABASE_URL;
const only = process.env.VID_TEST_BACKEND;

/** A parent and a child table, and an app whose one route inserts a child of a parent that is not there. */
async function orphanApp(handle: DatabaseHandle) {
  const db = handle.db as Kysely<any>;
  await db.schema.createTable('parents').addColumn('id', 'text', (c) => c.primaryKey()).execute();
  await db.schema.createTable('children').addColumn('id', 'text', (c) => c.primaryKey()).addColumn('parent_id', 'text', (c) => c.notNull().references('parents.id')).execute();
  const app = Fastify({ logger: false });
  await app.register(problemPlugin, { challenge: 'DPoP' });
  app.post('/children', async () => {
    await db.insertInto('children').values({ id: 'c1', parent_id: 'gone' }).execute();
    return { ok: true };
  });
  return app;
}

async function assertRefused(handle: DatabaseHandle): Promise<void> {
  const app = await orphanApp(handle);
  try {
    const res = await app.inject({ method: 'POST', url: '/children' });
    assert.equal(res.statusCode, 409, res.body);
    assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    const body = res.json();
    assert.equal(body.code, 'concurrent_change');
    assert.doesNotMatch(res.body, /foreign key|children|parents/i, 'no SQL or table names leave the service');
  } finally {
    await app.close();
  }
}

describe('a foreign-key violation answered as a refusal', () => {
  it('on SQLite (SQLITE_CONSTRAINT_FOREIGNKEY)', { skip: only && only !== 'sqlite' ? 'VID_TEST_BACKEND excludes sqlite' : false }, async () => {
    const handle = openSqlite(join(dir, 'fk.sqlite'));
    try {
      await assertRefused(handle);
    } finally {
      await handle.db.destroy();
      handle.replayFile?.close();
    }
  });

  it('on PostgreSQL (23503)', { skip: only && only !== 'postgres' ? 'VID_TEST_BACKEND excludes postgres' : postgresUrl ? false : 'TEST_DATABASE_URL is not set' }, async () => {
    const schema = `vid_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    const handle = openPostgres(postgresUrl!, { schema, poolSize: 1 });
    try {
      await assertRefused(handle);
    } finally {
      await handle.db.destroy();
      await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.end();
    }
  });
});
