// The security log a person can read (issue rule 6): GET /auth/security-log, newest first, in
// cursor pages, with sign-ins, new and removed passkeys, TOTP changes, recovery attempts and
// session revocations, each with its time, approximate location and user agent.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { STEP_UP_HEADER, addPasskeyDetailed, enrollTotp, logInAs, signUpWith, stepUp, totpCode } from '../helpers/step-up.js';

const LOG = '/api/v1/auth/security-log';
const UA = 'VID-Security-Test/2.5 (custom agent)';

interface Entry {
  id: string;
  kind: string;
  at: string;
  ip: string;
  location: string | null;
  user_agent: string;
  device_label: string;
}

for (const backend of backends) {
  describe(`security: the security log [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    async function page(device: Device, query = ''): Promise<{ data: Entry[]; next_cursor: string | null; has_more: boolean }> {
      const res = await t.client.as(device, 'GET', `${LOG}${query}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body;
    }

    /** An account with one of every kind of entry, one second apart, each request with a custom User-Agent. */
    async function eventfulAccount(): Promise<{ device: Device; times: Map<string, number> }> {
      const headers = { 'user-agent': UA };
      const times = new Map<string, number>();
      const mark = (kind: string) => {
        times.set(kind, t.clock.now());
        t.clock.advance(1_000);
      };
      const device = await signUpWith(t.client, uniqueName('log'), { headers });
      mark('account_created');
      const second = await logInAs(t.client, device, { headers });
      mark('signed_in');
      const added = await addPasskeyDetailed(t.client, device, { headers });
      mark('passkey_added');
      const removed = await t.client.as(device, 'DELETE', `/api/v1/auth/methods/${added.passkey.id}`, { headers: { ...headers, [STEP_UP_HEADER]: await stepUp(t.client, device) } });
      assert.equal(removed.status, 204);
      mark('passkey_removed');
      const totp = await enrollTotp(t.client, device, 'Phone', headers);
      mark('totp_added');
      const confirmed = await t.client.as(device, 'POST', `/api/v1/auth/totp/${totp.id}/confirm`, { body: { code: totpCode(totp.secret, t.clock.now()) }, headers });
      assert.equal(confirmed.status, 200);
      mark('totp_confirmed');
      const totpRemoved = await t.client.as(device, 'DELETE', `/api/v1/auth/totp/${totp.id}`, { headers: { ...headers, [STEP_UP_HEADER]: await stepUp(t.client, device) } });
      assert.equal(totpRemoved.status, 204);
      mark('totp_removed');
      const revoked = await t.client.as(device, 'DELETE', `/api/v1/auth/sessions/${second.tokens.session_id}`, { headers });
      assert.equal(revoked.status, 204);
      mark('session_revoked');
      return { device, times };
    }

    const NEWEST_FIRST = ['session_revoked', 'totp_removed', 'totp_confirmed', 'totp_added', 'passkey_removed', 'passkey_added', 'signed_in', 'account_created'];

    it('lists sign-in, passkey, TOTP and session events newest first, with time, address, user agent and location', async () => {
      const { device, times } = await eventfulAccount();
      const log = await page(device);
      assert.deepEqual(log.data.map((e) => e.kind), NEWEST_FIRST);
      assert.equal(log.has_more, false);
      assert.equal(log.next_cursor, null);
      for (const entry of log.data) {
        assert.deepEqual(Object.keys(entry).sort(), ['at', 'device_label', 'id', 'ip', 'kind', 'location', 'user_agent'], entry.kind);
        assert.match(entry.id, /^sec_/);
        assert.equal(entry.at, new Date(times.get(entry.kind)!).toISOString(), `${entry.kind} at`);
        assert.equal(entry.ip, '127.0.0.1', entry.kind);
        assert.equal(entry.user_agent, UA, entry.kind);
        // A user agent of no known browser or system: its product name, never the string itself.
        assert.equal(entry.device_label, 'VID-Security-Test', entry.kind);
      }
      // Loopback has no location (checked last, after everything else).
      for (const entry of log.data) assert.equal(entry.location, null, `${entry.kind}: location of 127.0.0.1 is ${entry.location}`);
    });

    it('pages with limit=2: every entry once, in order, no duplicates', async () => {
      const { device } = await eventfulAccount();
      const all = (await page(device)).data;
      const seen: Entry[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: { data: Entry[]; next_cursor: string | null; has_more: boolean } = await page(device, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        assert.ok(res.data.length <= 2);
        seen.push(...res.data);
        assert.equal(res.has_more, res.next_cursor !== null);
        cursor = res.next_cursor;
        pages++;
        assert.ok(pages <= 10, 'paging ends');
      } while (cursor);
      assert.equal(pages, 4);
      assert.equal(new Set(seen.map((e) => e.id)).size, seen.length, 'no duplicates');
      assert.deepEqual(seen, all);

      // Entries written between pages do not disturb the pages already read.
      const first = await page(device, '?limit=3');
      await logInAs(t.client, device);
      const rest = await page(device, `?limit=50&cursor=${first.next_cursor}`);
      assert.deepEqual([...first.data, ...rest.data].map((e) => e.id), all.map((e) => e.id));

      const bad = await t.client.as(device, 'GET', `${LOG}?cursor=garbage`);
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 'invalid_cursor');
      const tooMany = await t.client.as(device, 'GET', `${LOG}?limit=201`);
      assert.equal(tooMany.status, 400);
      assert.equal(tooMany.body.code, 'validation_failed');
    });

    it('names each entry\'s device as a person knows it, from the user agent', async () => {
      const firefox = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:130.0) Gecko/20100101 Firefox/130.0';
      const safari = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
      const device = await signUpWith(t.client, uniqueName('dev'), { headers: { 'user-agent': firefox } });
      t.clock.advance(1_000);
      await logInAs(t.client, device, { headers: { 'user-agent': safari } });
      t.clock.advance(1_000);
      await logInAs(t.client, device, { headers: { 'user-agent': '' } });
      const labels = (await page(device)).data.map((e) => [e.kind, e.device_label]);
      assert.deepEqual(labels, [['signed_in', 'Unknown device'], ['signed_in', 'Safari on iPhone'], ['account_created', 'Firefox on Windows']]);
    });

    it('another account sees none of it; without a session there is no log', async () => {
      const { device } = await eventfulAccount();
      const mine = new Set((await page(device)).data.map((e) => e.id));
      const stranger = await t.client.signUp(uniqueName('stranger'));
      const theirs = (await page(stranger)).data;
      assert.deepEqual(theirs.map((e) => e.kind), ['account_created']);
      assert.ok(!theirs.some((e) => mine.has(e.id)));
      // A cursor from Alice's log does not open it to Bob.
      const aliceCursor = (await page(device, '?limit=1')).next_cursor!;
      const crossed = await t.client.as(stranger, 'GET', `${LOG}?cursor=${aliceCursor}`);
      if (crossed.status === 200) assert.ok(!crossed.body.data.some((e: Entry) => mine.has(e.id)));
      const anonymous = await t.client.call('GET', LOG);
      assert.equal(anonymous.status, 401);
    });

    describe('approximate location', () => {
      let proxied: TestApp;
      before(async () => {
        // Behind a reverse proxy: the client address comes from X-Forwarded-For.
        proxied = await startTestApp(backend, { TRUST_PROXY: '1' });
      });
      after(() => proxied.close());

      it('locates a public address to city and country from the offline database', async () => {
        const device = await signUpWith(proxied.client, uniqueName('geo'), { headers: { 'x-forwarded-for': '81.2.69.142', 'user-agent': UA } });
        const res = await proxied.client.as(device, 'GET', LOG);
        const [entry] = res.body.data as Entry[];
        assert.equal(entry!.kind, 'account_created');
        assert.equal(entry!.ip, '81.2.69.142');
        assert.match(entry!.location ?? '', /, GB$/);
      });

      it('private and loopback addresses have no location', async () => {
        for (const ip of ['10.1.2.3', '192.168.1.20', '127.0.0.1']) {
          const device = await signUpWith(proxied.client, uniqueName('lan'), { headers: { 'x-forwarded-for': ip } });
          const [entry] = (await proxied.client.as(device, 'GET', LOG)).body.data as Entry[];
          assert.equal(entry!.ip, ip);
          assert.equal(entry!.location, null, `${ip} located at ${entry!.location}`);
        }
      });
    });
  });
}
