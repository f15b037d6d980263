// Migrations 013-username-keys and 020-username-sequence-keys (docs/decisions/007-usernames.md,
// "Look-alikes", "Sequences") on a database that already holds accounts: every held name gets the
// new keys and is shown in its canonical form, no account loses its name, and two existing names
// that now look alike both stay.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { allMigrations } from '../../src/modules/index.js';
import { confusableSkeleton } from '../../src/modules/usernames/migrations/013-username-keys.js';
import { comparisonKeys } from '../../src/modules/usernames/rules.js';
import { openPostgres, openSqlite } from '../../src/platform/store/db.js';
import { migrateToLatest } from '../../src/platform/store/migrate.js';
import { createStore } from '../../src/platform/store/store.js';
import type { Store } from '../../src/platform/store/store.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import type { TestBackend } from '../helpers/backends.js';

const MIGRATION = '013-username-keys';
const before013 = () => Object.fromEntries(Object.entries(allMigrations()).filter(([name]) => name < MIGRATION));
const DAY = 86_400_000;

/** Accounts as the service stored them before 013: the name as typed, the plain UTS #39 skeleton. */
const EXISTING = [
  // "a.lice" came first; "Alice" later now shares its key ("alice"), and its old skeleton is "a.lice"'s new key.
  { id: 'acc_mig1', typed: 'A.lice', canonical: 'a.lice', created: 1 },
  { id: 'acc_mig2', typed: 'Alice', canonical: 'alice', created: 2 },
  { id: 'acc_mig3', typed: 'BiLLy', canonical: 'billy', created: 3 },
  // The same lower-case key never, the same capitals key ("PIXEL", "P1XEL"): the later one gets none.
  { id: 'acc_mig4', typed: 'PIXEL', canonical: 'pixel', created: 4 },
  { id: 'acc_mig5', typed: 'p1xel', canonical: 'p1xel', created: 5 },
  { id: 'acc_mig6', typed: 'Topexa', canonical: 'topexa', created: 6 },
  // Apart until 020 (two letters that imitate one): "dana" came first and keeps the key "clana".
  { id: 'acc_mig9', typed: 'dana', canonical: 'dana', created: 9 },
  { id: 'acc_mig10', typed: 'clana', canonical: 'clana', created: 10 },
];

/** A fresh database of this backend migrated up to (not including) 013, with EXISTING in it, then migrated. */
function populated(backend: TestBackend): TestBackend {
  return {
    ...backend,
    async open() {
      let store: Store;
      let cleanup: () => Promise<void>;
      let extra: { databaseUrl?: string; schema?: string } = {};
      if (backend.name === 'sqlite') {
        const dir = mkdtempSync(join(tmpdir(), 'vid-test-'));
        store = createStore(openSqlite(join(dir, 'vid.sqlite')));
        cleanup = async () => {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        };
      } else {
        const url = process.env.TEST_DATABASE_URL as string;
        const schema = `vid_test_${randomBytes(6).toString('hex')}`;
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        await admin.query(`create schema ${schema}`);
        await admin.end();
        store = createStore(openPostgres(url, { schema, poolSize: 5 }));
        extra = { databaseUrl: url, schema };
        cleanup = async () => {
          await store.close();
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          await client.query(`drop schema if exists ${schema} cascade`);
          await client.end();
        };
      }
      try {
        const db = store.handle.db as any;
        await migrateToLatest(db, store.handle.schema, before013());
        const now = Date.now();
        const row = (id: string, username: string, canonical: string, skeleton: string, created: number) => ({
          id, username, username_canonical: canonical, username_skeleton: skeleton, user_handle: `h_${id}`, display_name: null,
          locale: null, default_country: null, region: 'eu', version: 1, created_at: created,
        });
        for (const a of EXISTING) await db.insertInto('accounts').values(row(a.id, a.typed, a.canonical, confusableSkeleton(a.canonical), a.created)).execute();
        // A tombstone still holding its name, and one whose hold is over (released).
        await db.insertInto('accounts').values({ ...row('acc_mig7', 'gone.name', 'gone.name', confusableSkeleton('gone.name'), 7), deleted_at: 1, purge_at: 2, purged_at: 7, hold_until: now + 365 * DAY }).execute();
        await db.insertInto('accounts').values({ ...row('acc_mig8', '(deleted account)', '~acc_mig8', '~acc_mig8', 8), deleted_at: 1, purge_at: 2, purged_at: 3 }).execute();
        await migrateToLatest(db, store.handle.schema, allMigrations());
      } catch (error) {
        await cleanup();
        throw error;
      }
      return { store, ...extra, cleanup };
    },
  };
}

for (const backend of backends) {
  describe(`migration ${MIGRATION} on existing accounts [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(populated(backend));
    });
    after(() => t.close());

    const rows = () =>
      t.store.handle.db
        .selectFrom('accounts')
        .select(['id', 'username', 'username_canonical', 'username_skeleton', 'username_skeleton_upper'])
        .orderBy('id')
        .execute();
    const check = async (username: string) => (await t.client.call('POST', '/api/v1/auth/username/check', { body: { username } })).body;

    it('keeps every name, shows it in its canonical form, and gives it the new keys (a later look-alike keeps its name, not a key)', async () => {
      const byId = new Map((await rows()).map((r) => [r.id, r]));
      const keys = (canonical: string) => comparisonKeys(canonical);
      assert.deepEqual(byId.get('acc_mig1'), { id: 'acc_mig1', username: 'a.lice', username_canonical: 'a.lice', username_skeleton: 'alice', username_skeleton_upper: keys('a.lice').skeletonUpper });
      assert.deepEqual(byId.get('acc_mig2'), { id: 'acc_mig2', username: 'alice', username_canonical: 'alice', username_skeleton: '~acc_mig2', username_skeleton_upper: null });
      assert.deepEqual(byId.get('acc_mig3'), { id: 'acc_mig3', username: 'billy', username_canonical: 'billy', username_skeleton: 'billy', username_skeleton_upper: 'BlLLY' });
      assert.deepEqual(byId.get('acc_mig4'), { id: 'acc_mig4', username: 'pixel', username_canonical: 'pixel', username_skeleton: 'pixel', username_skeleton_upper: 'PlXEL' });
      assert.deepEqual(byId.get('acc_mig5'), { id: 'acc_mig5', username: 'p1xel', username_canonical: 'p1xel', username_skeleton: 'plxel', username_skeleton_upper: null });
      assert.deepEqual(byId.get('acc_mig6'), { id: 'acc_mig6', username: 'topexa', username_canonical: 'topexa', username_skeleton: 'topexa', username_skeleton_upper: 'TOPEXA' });
      assert.deepEqual(byId.get('acc_mig7'), { id: 'acc_mig7', username: 'gone.name', username_canonical: 'gone.name', username_skeleton: 'gonenarne', username_skeleton_upper: 'GONENAME' });
      assert.deepEqual(byId.get('acc_mig8'), { id: 'acc_mig8', username: '(deleted account)', username_canonical: '~acc_mig8', username_skeleton: '~acc_mig8', username_skeleton_upper: null });
      // 020-username-sequence-keys: "clana" now looks like "dana", which had its name first.
      assert.deepEqual(byId.get('acc_mig9'), { id: 'acc_mig9', username: 'dana', username_canonical: 'dana', username_skeleton: 'clana', username_skeleton_upper: 'DANA' });
      assert.deepEqual(byId.get('acc_mig10'), { id: 'acc_mig10', username: 'clana', username_canonical: 'clana', username_skeleton: '~acc_mig10', username_skeleton_upper: 'CLANA' });
    });

    it('answers with the new rules on the migrated names: taken, confusable, free once released', async () => {
      for (const name of ['Alice', 'A.Lice', 'BILLY', 'p1xel', 'PIXEL', 'Gone.Name']) assert.equal((await check(name)).reason, 'taken', name);
      for (const name of ['a_lice', 'alíce', 'biIIy', 'ТОРЕХА', 'pixe1', 'gone-name', 'c1ana', 'da.na']) assert.equal((await check(name)).reason, 'confusable', name);
      assert.equal((await check('some.one')).available, true);
    });

    it('lets a new account in beside the migrated ones, with both keys stored', async () => {
      const device = await t.client.signUp('Newcomer');
      const row = (await rows()).find((r) => r.id === device.accountId);
      assert.deepEqual(row, { id: device.accountId, username: 'newcomer', username_canonical: 'newcomer', username_skeleton: 'nevvcorner', username_skeleton_upper: 'NEVVCOMER' });
    });
  });
}
