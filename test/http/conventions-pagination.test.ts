// PRODUCT §0 lists: {data, next_cursor, has_more}; limit 1..200, default 50; opaque cursor, a
// malformed one is 400 invalid_cursor; stable order with no duplicates or gaps while rows are added.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { uniqueName } from '../helpers/client.js';
import type { CallResult, Device } from '../helpers/client.js';

const SESSIONS = '/api/v1/auth/sessions';

function assertProblem(res: CallResult, status: number, code: string): void {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status} ${JSON.stringify(res.body)}`);
  assert.equal(res.headers.get('content-type')?.split(';')[0], 'application/problem+json');
  assert.equal(res.body.status, status);
  assert.equal(res.body.code, code);
  assert.equal(res.body.request_id, res.headers.get('vid-request-id'));
}

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
        assertProblem(res, 400, 'validation_failed');
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
        assertProblem(res, 400, 'invalid_cursor');
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
