// PRODUCT §0 lists: {data, next_cursor, has_more}; limit 1..200, default 50; opaque cursor, a
// malformed one is 400 invalid_cursor; stable order with no duplicates or gaps while rows are added.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { uniqueName } from '../helpers/client.js';
import type { CallResult, Device } from '../helpers/client.js';
import { RELAXED_JOIN_LIMITS, start } from '../helpers/join.js';
import { social } from '../helpers/social.js';
import { enrollTotp } from '../helpers/step-up.js';
import { expectProblem } from '../helpers/problem.js';

const SESSIONS = '/api/v1/auth/sessions';

interface SessionItem {
  id: string;
  created_at: string;
  current: boolean;
}

for (const backend of backends) {
  describe(`conventions: cursor pagination on GET /auth/sessions [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    /** One more session of the device's account, created a second later than the last one. */
    async function addSession(device: Device): Promise<string> {
      t.clock.advance(1000);
      const login = await t.client.logIn(device.authenticator);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      return login.body.session_id as string;
    }

    async function listAll(device: Device): Promise<SessionItem[]> {
      const res = await t.client.as(device, 'GET', `${SESSIONS}?limit=200`);
      assert.equal(res.status, 200);
      assert.equal(res.body.has_more, false);
      assert.equal(res.body.next_cursor, null);
      return res.body.data;
    }

    it('pages through all sessions with limit=2, no duplicates or gaps while sessions are added between pages', async () => {
      const device = await t.client.signUp(uniqueName('pager'));
      const initial = [device.tokens.session_id];
      for (let i = 0; i < 6; i++) initial.push(await addSession(device));
      assert.deepEqual((await listAll(device)).map((s) => s.id), initial, 'oldest first, in creation order');

      const seen: SessionItem[] = [];
      const added: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      for (;;) {
        const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
        const page = await t.client.as(device, 'GET', `${SESSIONS}${query}`);
        assert.equal(page.status, 200, JSON.stringify(page.body));
        pages++;
        assert.ok(pages <= 20, 'paging terminates');
        assert.deepEqual(Object.keys(page.body).sort(), ['data', 'has_more', 'next_cursor']);
        seen.push(...page.body.data);
        if (page.body.has_more) {
          assert.equal(page.body.data.length, 2);
          assert.equal(typeof page.body.next_cursor, 'string');
          assert.ok(page.body.next_cursor.length > 0);
          cursor = page.body.next_cursor;
        } else {
          assert.equal(page.body.next_cursor, null, 'no cursor on the last page');
          assert.ok(page.body.data.length >= 1 && page.body.data.length <= 2);
          break;
        }
        // Rows arriving meanwhile must neither shift nor repeat what is still to come.
        if (pages <= 3) added.push(await addSession(device));
      }

      const ids = seen.map((s) => s.id);
      assert.equal(new Set(ids).size, ids.length, 'no duplicates');
      for (const id of initial) assert.ok(ids.includes(id), `session ${id} was not skipped`);
      for (const id of added) assert.ok(ids.includes(id), `session ${id} added meanwhile, after the cursor, was seen`);
      assert.deepEqual(ids, [...initial, ...added], 'stable order: oldest first');
      assert.deepEqual(ids, (await listAll(device)).map((s) => s.id));
      assert.equal(pages, 5);
      assert.equal(seen.filter((s) => s.current).length, 1);
      assert.equal(seen.find((s) => s.current)?.id, device.tokens.session_id);
      const times = seen.map((s) => Date.parse(s.created_at));
      assert.deepEqual([...times].sort((a, b) => a - b), times);
    });

    it('ends with has_more false and next_cursor null when the last page is exactly full', async () => {
      const device = await t.client.signUp(uniqueName('exact'));
      await addSession(device);
      await addSession(device);
      await addSession(device);
      const first = await t.client.as(device, 'GET', `${SESSIONS}?limit=2`);
      assert.equal(first.body.has_more, true);
      const second = await t.client.as(device, 'GET', `${SESSIONS}?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
      assert.equal(second.status, 200);
      assert.equal(second.body.data.length, 2);
      assert.equal(second.body.has_more, false);
      assert.equal(second.body.next_cursor, null);
      const single = await t.client.as(device, 'GET', `${SESSIONS}?limit=4`);
      assert.equal(single.body.data.length, 4);
      assert.equal(single.body.has_more, false);
      assert.equal(single.body.next_cursor, null);
    });

    it('refuses limit=0, limit=201 and a non-integer limit with 400 validation_failed; accepts 1 and 200', async () => {
      const device = await t.client.signUp(uniqueName('limits'));
      for (const limit of ['0', '201', '-1', 'abc', '2.5', '100000']) {
        const res = await t.client.as(device, 'GET', `${SESSIONS}?limit=${limit}`);
        expectProblem(res, 400, 'validation_failed');
        assert.ok(Array.isArray(res.body.errors) && res.body.errors.length >= 1);
        assert.ok(res.body.errors.some((e: { path: string }) => e.path.includes('limit')), JSON.stringify(res.body.errors));
      }
      for (const limit of ['1', '200']) {
        const res = await t.client.as(device, 'GET', `${SESSIONS}?limit=${limit}`);
        assert.equal(res.status, 200, `limit=${limit}`);
        assert.equal(res.body.data.length, 1);
      }
    });

    it('refuses a malformed cursor with 400 invalid_cursor', async () => {
      const device = await t.client.signUp(uniqueName('cursor'));
      const b64 = (s: string) => Buffer.from(s).toString('base64url');
      const cursors = [
        '!!!',
        b64('{"junk": true}'),
        b64('not json at all'),
        b64('[1]'),
        b64('["x", "y"]'),
        b64('[1.5, "id"]'),
        b64(`[1, "${'z'.repeat(100)}"]`),
        b64('null'),
      ];
      for (const cursor of cursors) {
        const res = await t.client.as(device, 'GET', `${SESSIONS}?limit=2&cursor=${encodeURIComponent(cursor)}`);
        expectProblem(res, 400, 'invalid_cursor');
      }
    });

    it('defaults to 50 items a page', async () => {
      const device = await t.client.signUp(uniqueName('deflt'));
      for (let i = 0; i < 51; i++) await addSession(device);
      const first = await t.client.as(device, 'GET', SESSIONS);
      assert.equal(first.status, 200);
      assert.equal(first.body.data.length, 50);
      assert.equal(first.body.has_more, true);
      assert.equal(typeof first.body.next_cursor, 'string');
      const rest = await t.client.as(device, 'GET', `${SESSIONS}?cursor=${encodeURIComponent(first.body.next_cursor)}`);
      assert.equal(rest.status, 200);
      assert.equal(rest.body.data.length, 2);
      assert.equal(rest.body.has_more, false);
      assert.equal(rest.body.next_cursor, null);
      const all = [...first.body.data, ...rest.body.data].map((s: SessionItem) => s.id);
      assert.equal(new Set(all).size, 52);
    });
  });
}

for (const backend of backends) {
  describe(`conventions: limit and cursor on every list [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend, RELAXED_JOIN_LIMITS);
    });
    after(() => t.close());

    /**
     * Walks a list two at a time: every page the list envelope, a cursor exactly when more
     * follow; `between` runs after the first page (rows added meanwhile). Answers the keys seen.
     */
    async function walk(device: Device, path: string, keyOf: (item: any) => string, between?: () => Promise<void>): Promise<string[]> {
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let pages = 1; ; pages++) {
        assert.ok(pages <= 20, `${path}: paging terminates`);
        const res: CallResult = await t.client.as(device, 'GET', `${path}?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
        assert.deepEqual(Object.keys(res.body).sort(), ['data', 'has_more', 'next_cursor']);
        assert.ok(res.body.data.length <= 2, `${path}: limit=2 answered ${res.body.data.length} items`);
        seen.push(...res.body.data.map(keyOf));
        if (!res.body.has_more) {
          assert.equal(res.body.next_cursor, null, `${path}: no cursor on the last page`);
          break;
        }
        assert.equal(res.body.data.length, 2);
        assert.equal(typeof res.body.next_cursor, 'string');
        cursor = res.body.next_cursor;
        if (pages === 1 && between) await between();
      }
      assert.equal(new Set(seen).size, seen.length, `${path}: no duplicates`);
      return seen;
    }

    async function all(device: Device, path: string, keyOf: (item: any) => string): Promise<string[]> {
      const res = await t.client.as(device, 'GET', `${path}?limit=200`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.has_more, false);
      assert.equal(res.body.next_cursor, null);
      return res.body.data.map(keyOf);
    }

    /** limit over 200 or under 1 is 400 validation_failed, a malformed cursor 400 invalid_cursor, no limit the default. */
    async function refusesBadPaging(device: Device, path: string, count: number): Promise<void> {
      for (const limit of ['0', '201']) {
        const res = await t.client.as(device, 'GET', `${path}?limit=${limit}`);
        expectProblem(res, 400, 'validation_failed');
        assert.ok(res.body.errors.some((e: { path: string }) => e.path.includes('limit')), JSON.stringify(res.body.errors));
      }
      for (const cursor of ['!!!', Buffer.from('[1]').toString('base64url'), Buffer.from('{"x":1}').toString('base64url')]) {
        expectProblem(await t.client.as(device, 'GET', `${path}?limit=2&cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_cursor');
      }
      const plain = await t.client.as(device, 'GET', path);
      assert.equal(plain.status, 200);
      assert.equal(plain.body.data.length, Math.min(count, 50), `${path}: 50 by default`);
    }

    it('GET /labels pages in the order of the labels, and refuses bad limits and cursors', async () => {
      const s = social(t);
      const author = await s.person('labeller');
      const labels = ['Alpha', 'bravo', 'Charlie', 'delta', 'Echo', 'foxtrot', 'Golf'];
      for (const [i, set] of [labels.slice(0, 4), labels.slice(2)].entries()) {
        const owner = await s.person(`owner${i}`);
        const contact = await s.subscribe(author, owner);
        assert.equal(contact.status, 201, JSON.stringify(contact.body));
        const put = await t.client.as(author, 'PUT', `/api/v1/contacts/${contact.body.id}/annotation`, { body: { note: '', labels: set } });
        assert.ok(put.status === 200 || put.status === 201, JSON.stringify(put.body));
      }
      const everything = await all(author, '/api/v1/labels', (l) => `${l.label}:${l.count}`);
      assert.deepEqual(everything, ['Alpha:1', 'bravo:1', 'Charlie:2', 'delta:2', 'Echo:1', 'foxtrot:1', 'Golf:1'], 'ordered ignoring case');
      assert.deepEqual(await walk(author, '/api/v1/labels', (l) => `${l.label}:${l.count}`), everything);
      await refusesBadPaging(author, '/api/v1/labels', labels.length);
    });

    it('GET /auth/totp pages oldest first; authenticators added while paging come at the end', async () => {
      const device = await t.client.signUp(uniqueName('totps'));
      const initial: string[] = [];
      for (let i = 0; i < 5; i++) {
        t.clock.advance(1000);
        initial.push((await enrollTotp(t.client, device, `App ${i}`)).id);
      }
      assert.deepEqual(await all(device, '/api/v1/auth/totp', (a) => a.id), initial);
      const added: string[] = [];
      const seen = await walk(device, '/api/v1/auth/totp', (a) => a.id, async () => {
        t.clock.advance(1000);
        added.push((await enrollTotp(t.client, device, 'Added meanwhile')).id);
      });
      assert.deepEqual(seen, [...initial, ...added], 'stable order, no gaps, the new one last');
      await refusesBadPaging(device, '/api/v1/auth/totp', initial.length + added.length);
    });

    it('GET /auth/join/pending pages newest first; attempts made while paging do not repeat or shift the rest', async () => {
      const device = await t.client.signUp(uniqueName('pending'));
      const initial: string[] = [];
      for (let i = 0; i < 5; i++) {
        t.clock.advance(1000);
        const { res } = await start(t.client, device.username);
        assert.equal(res.status, 201, JSON.stringify(res.body));
        initial.unshift(res.body.attempt_id);
      }
      assert.deepEqual(await all(device, '/api/v1/auth/join/pending', (p) => p.attempt_id), initial, 'newest first');
      const seen = await walk(device, '/api/v1/auth/join/pending', (p) => p.attempt_id, async () => {
        t.clock.advance(1000);
        assert.equal((await start(t.client, device.username)).res.status, 201);
      });
      assert.deepEqual(seen, initial, 'the newer attempt sorts before the cursor: not seen, nothing repeated or skipped');
      await refusesBadPaging(device, '/api/v1/auth/join/pending', initial.length + 1);
    });

    it('GET /field-types pages its fixed order like any list, and refuses bad limits and cursors', async () => {
      const device = await t.client.signUp(uniqueName('catalog'));
      const whole = await all(device, '/api/v1/field-types', (f) => f.key);
      assert.ok(whole.length > 2);
      assert.deepEqual(await walk(device, '/api/v1/field-types', (f) => f.key), whole);
      await refusesBadPaging(device, '/api/v1/field-types', whole.length);
    });

    it('GET /profiles/{id}/exposures pages in the profile\'s order, and refuses bad limits and cursors', async () => {
      const device = await t.client.signUp(uniqueName('exposures'));
      const profile = await t.client.as(device, 'POST', '/api/v1/profiles', { body: { name: 'Work' }, headers: { 'idempotency-key': crypto.randomUUID() } });
      const path = `/api/v1/profiles/${profile.body.id}/exposures`;
      for (let i = 0; i < 5; i++) {
        const field = await t.client.as(device, 'POST', '/api/v1/me/fields', { body: { type: 'nickname', value: `Nick ${i}` }, headers: { 'idempotency-key': crypto.randomUUID() } });
        assert.equal((await t.client.as(device, 'PUT', `${path}/${field.body.id}`, { body: {} })).status, 201);
      }
      const whole = await all(device, path, (e) => e.field_id);
      assert.equal(whole.length, 5);
      assert.deepEqual(await walk(device, path, (e) => e.field_id), whole);
      await refusesBadPaging(device, path, whole.length);
    });

    it('every list in the OpenAPI document takes limit and cursor', async () => {
      const doc = (await t.client.call('GET', '/api/v1/openapi.json', { unchecked: true })).body;
      const lists: string[] = [];
      const missing: string[] = [];
      for (const [template, operations] of Object.entries<Record<string, any>>(doc.paths)) {
        const get = operations.get;
        const schema = get?.responses?.['200']?.content?.['application/json']?.schema;
        const resolved = schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
        if (!resolved?.properties?.next_cursor) continue;
        lists.push(template);
        const names = (get.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name);
        // GET /events pages with `since` (its cursor is a position in the feed) besides `cursor`.
        for (const name of ['limit', 'cursor']) if (!names.includes(name)) missing.push(`${template}: ${name}`);
      }
      assert.ok(lists.length >= 15, `lists found: ${lists.join(', ')}`);
      assert.deepEqual(missing, []);
    });
  });
}
