// Recovery key and recovery (issue rules 4 and 5; PRODUCT §1 /auth/recovery-key,
// /auth/recovery/begin and /finish). With at least one active TOTP authenticator the key AND a
// valid code are needed; with none, the key alone. Every failure answers the same 403
// recovery_refused (the documented departure from PRODUCT's `totp_required`: one answer that
// does not say which part was wrong). Wrong keys are limited per client address, the right key's
// holder per account, so no stranger can refuse the right key (decision 250); every attempt is
// recorded in the account's security log. The key never appears in logs.
import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { createManualClock } from '../../src/platform/clock.js';
import { backends } from '../helpers/backends.js';
import type { TestBackend } from '../helpers/backends.js';
import { PUBLIC_ORIGIN, startTestApp, testConfig } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { SoftwareAuthenticator } from '../helpers/authenticator.js';
import { TestClient, uniqueName } from '../helpers/client.js';
import type { CallResult, Device } from '../helpers/client.js';
import { createContractChecker } from '../helpers/contract.js';
import type { DpopKey } from '../helpers/dpop.js';
import { RECOVERY_KEY_PATTERN, STEP_UP_HEADER, activeTotp, downloadRecoveryKey, enrollTotp, logInAs, stepUp, totpCode, wrongTotpCode } from '../helpers/step-up.js';
import { accountQueries } from '../../src/platform/store/accounts.js';
import { recoveryKeyDownloads } from '../../src/modules/recovery/migrations/016-recovery-key-downloads.js';
import { expectProblem } from '../helpers/problem.js';

const RECOVERY_KEY = '/api/v1/auth/recovery-key';
const BEGIN = '/api/v1/auth/recovery/begin';
const FINISH = '/api/v1/auth/recovery/finish';
const SECURITY_LOG = '/api/v1/auth/security-log';
const ATTEMPT_UA = 'RecoveryTest/1.0 (new device)';

/** Another well-formed key: every symbol of the real one shifted, so it cannot match. */
function otherKey(key: string): string {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  return key.replace(/[0-9A-Z]/g, (c) => alphabet[(alphabet.indexOf(c) + 1) % 32]!);
}

const isAttempt = (kind: string) => kind === 'recovery_succeeded' || kind === 'recovery_failed';

function withoutRequestId(body: any): any {
  const { request_id: _ignored, ...rest } = body;
  return rest;
}

interface Recovered {
  res: CallResult;
  key: DpopKey;
  authenticator: SoftwareAuthenticator;
}

function recoverySteps(client: TestClient) {
  const begin = (username: string, recoveryKey: string, code?: string, headers: Record<string, string> = {}) =>
    client.call('POST', BEGIN, {
      body: { username, recovery_key: recoveryKey, ...(code === undefined ? {} : { totp_code: code }) },
      headers: { 'user-agent': ATTEMPT_UA, ...headers },
    });
  const finish = async (ceremonyId: string, options: any): Promise<Recovered> => {
    const authenticator = new SoftwareAuthenticator();
    const key = await client.newKey();
    const credential = await authenticator.createCredential(options, client.publicOrigin);
    const res = await client.call('POST', FINISH, { body: { ceremony_id: ceremonyId, credential }, key, headers: { 'user-agent': ATTEMPT_UA, 'idempotency-key': randomUUID() } });
    return { res, key, authenticator };
  };
  return { begin, finish };
}

const securityLog = async (client: TestClient, device: Device | { key: DpopKey; token: string }) => {
  const res = 'tokens' in device ? await client.as(device, 'GET', `${SECURITY_LOG}?limit=200`) : await client.call('GET', `${SECURITY_LOG}?limit=200`, { key: device.key, token: device.token });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as { id: string; kind: string; at: string; ip: string; location: string | null; user_agent: string }[];
};

for (const backend of backends) {
  describe(`recovery: the recovery key and recovery [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let steps: ReturnType<typeof recoverySteps>;
    before(async () => {
      t = await startTestApp(backend, { RECOVERY_PER_CLIENT_PER_HOUR: '100000', RECOVERY_KEY_HOLDER_PER_HOUR: '100000' });
      steps = recoverySteps(t.client);
    });
    after(() => t.close());

    function expectRefused(res: CallResult, why: string): void {
      expectProblem(res, 403, 'recovery_refused', why);
    }

    it('downloads the recovery key as a text attachment (step-up): 8 groups of 4 Crockford base32, 160 bits, the same each time', async () => {
      const device = await t.client.signUp(uniqueName('dl'));
      const res = await t.client.as(device, 'GET', RECOVERY_KEY, { headers: { [STEP_UP_HEADER]: await stepUp(t.client, device) } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
      const disposition = res.headers.get('content-disposition') ?? '';
      assert.match(disposition, /^attachment;\s*filename="[^"]+\.txt"$/);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const match = RECOVERY_KEY_PATTERN.exec(String(res.body));
      assert.ok(match, String(res.body));
      const key = match[0];
      assert.match(key, /^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){7}$/);
      assert.equal(key.replace(/-/g, '').length * 5, 160, '32 base32 symbols: 160 bits, at least 128');
      assert.equal(await downloadRecoveryKey(t.client, device), key, 'generated once at sign-up; every download is the same key');
      const kinds = (await securityLog(t.client, device)).map((e) => e.kind);
      assert.equal(kinds.filter((k) => k === 'recovery_key_downloaded').length, 2);
      // Another account's key is another key.
      const other = await t.client.signUp(uniqueName('dl2'));
      assert.notEqual(await downloadRecoveryKey(t.client, other), key);
    });

    it('says when the key was made and last downloaded (no step-up, never the key), and tells every device of a download', async () => {
      const made = t.clock.now();
      const device = await t.client.signUp(uniqueName('state'));
      const laptop = await logInAs(t.client, device);
      const state = async (as: Device) => {
        const res = await t.client.as(as, 'GET', `${RECOVERY_KEY}/state`);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.headers.get('cache-control'), 'no-store');
        return res.body;
      };
      assert.deepEqual(await state(device), { created_at: new Date(made).toISOString(), downloaded_at: null, schema_version: 1 }, 'never downloaded yet');
      t.clock.advance(60_000);
      const key = await downloadRecoveryKey(t.client, device);
      const first = t.clock.now();
      assert.equal((await state(laptop)).downloaded_at, new Date(first).toISOString(), 'every device sees the date');
      const events = (await t.client.as(laptop, 'GET', '/api/v1/events')).body.data.map((e: { kind: string; resource: string }) => `${e.kind} ${e.resource}`);
      assert.ok(events.includes('recovery_key.changed /auth/recovery-key/state'), JSON.stringify(events));
      const raw = JSON.stringify(await state(device));
      for (const form of [key, key.replace(/-/g, '')]) assert.ok(!raw.includes(form), 'the state never holds the key');
      // A new download is the same key, so it replaces nothing: only the date moves.
      t.clock.advance(5 * 60_000);
      assert.equal(await downloadRecoveryKey(t.client, laptop), key);
      assert.equal((await state(device)).downloaded_at, new Date(t.clock.now()).toISOString());
      expectProblem(await t.client.call('GET', `${RECOVERY_KEY}/state`, { key: device.key }), 401, 'unauthenticated');
    });

    it('keys downloaded before the date was kept take it from the security log (migration 016)', async () => {
      const device = await t.client.signUp(uniqueName('backfill'));
      const never = await t.client.signUp(uniqueName('never'));
      await downloadRecoveryKey(t.client, device);
      const logged = (await securityLog(t.client, device)).find((e) => e.kind === 'recovery_key_downloaded')!.at;
      const db = t.store.handle.db;
      await recoveryKeyDownloads.down!(db);
      await recoveryKeyDownloads.up(db);
      assert.equal((await t.client.as(device, 'GET', `${RECOVERY_KEY}/state`)).body.downloaded_at, logged);
      assert.equal((await t.client.as(never, 'GET', `${RECOVERY_KEY}/state`)).body.downloaded_at, null);
    });

    it('stores the key sealed plus a verifier hash: the database holds no copy of the key', async () => {
      const device = await t.client.signUp(uniqueName('sealed'));
      const key = await downloadRecoveryKey(t.client, device);
      const compact = key.replace(/-/g, '');
      const row = await t.store.handle.db.selectFrom('recovery_keys').selectAll().where('account_id', '=', device.accountId).executeTakeFirstOrThrow();
      assert.match(row.key_sealed, /^v2\.[A-Za-z0-9_-]{8}\./);
      for (const column of [row.key_sealed, row.verifier]) {
        for (const form of [key, compact, key.toLowerCase(), compact.toLowerCase()]) assert.ok(!column.includes(form), 'no clear copy of the key');
      }
      assert.match(row.verifier, /^[A-Za-z0-9_-]{43}$/, 'a SHA-256 verifier');
    });

    it('the key alone recovers an account without TOTP: new passkey, trusted DPoP-bound session, other devices signalled', async () => {
      const old = await t.client.signUp(uniqueName('rec'));
      const key = await downloadRecoveryKey(t.client, old);
      const before = await t.client.as(old, 'GET', '/api/v1/events');
      assert.equal(before.status, 200);

      const begin = await steps.begin(old.username, key);
      assert.equal(begin.status, 200, JSON.stringify(begin.body));
      assert.match(begin.body.ceremony_id, /^cer_/);
      const account = await t.store.use(accountQueries).findById(old.accountId);
      assert.equal(begin.body.options.user.id, account!.user_handle, 'creation options for the existing account');
      assert.deepEqual(begin.body.options.excludeCredentials.map((c: { id: string }) => c.id), [old.authenticator.credentials[0]!.id]);
      assert.equal(begin.body.options.authenticatorSelection.userVerification, 'required');

      const { res, key: newKey, authenticator } = await steps.finish(begin.body.ceremony_id, begin.body.options);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.trusted, true);
      assert.equal(res.body.token_type, 'DPoP');
      assert.equal(res.headers.get('cache-control'), 'no-store');

      // The session is bound to the new device's key.
      const me = await t.client.call('GET', '/api/v1/me', { key: newKey, token: res.body.access_token });
      assert.equal(me.status, 200, JSON.stringify(me.body));
      assert.equal(me.body.id, old.accountId);
      const stolen = await t.client.call('GET', '/api/v1/me', { key: await t.client.newKey(), token: res.body.access_token });
      assert.equal(stolen.status, 401);
      // The new passkey is registered, bound to the new key, and logs in.
      const methods = await t.client.call('GET', '/api/v1/auth/methods', { key: newKey, token: res.body.access_token });
      assert.equal(methods.body.data.length, 2);
      assert.ok(methods.body.data.some((p: { dpop_jkt: string }) => p.dpop_jkt === newKey.jkt));
      assert.equal((await t.client.logIn(authenticator)).status, 200);

      // The old device hears of it: signals after its last cursor, and in the signal log.
      const after = await t.client.as(old, 'GET', `/api/v1/events?since=${before.body.next_cursor}`);
      assert.equal(after.status, 200, JSON.stringify(after.body));
      const kinds = after.body.data.map((s: { kind: string }) => s.kind);
      for (const kind of ['account.changed', 'methods.changed', 'sessions.changed']) assert.ok(kinds.includes(kind), `${kind} in ${kinds}`);
      const stored = await t.store.handle.db.selectFrom('events').select('kind').where('account_id', '=', old.accountId).execute();
      for (const kind of ['account.changed', 'methods.changed', 'sessions.changed']) assert.ok(stored.some((e) => e.kind === kind), `${kind} stored`);

      // The attempt and the new passkey are in the security log.
      const log = await securityLog(t.client, { key: newKey, token: res.body.access_token });
      const succeeded = log.filter((e) => e.kind === 'recovery_succeeded');
      assert.equal(succeeded.length, 1);
      assert.equal(succeeded[0]!.user_agent, ATTEMPT_UA);
      assert.equal(succeeded[0]!.ip, '127.0.0.1');
      assert.ok(log.some((e) => e.kind === 'passkey_added'));
    });

    it('accepts the key as typed by a person: lower case, spaces instead of dashes, I/L for 1, O for 0', async () => {
      const device = await t.client.signUp(uniqueName('typed'));
      const key = await downloadRecoveryKey(t.client, device);
      for (const typed of [
        key.toLowerCase().replace(/-/g, ' '),
        ` ${key.replace(/-/g, '')} `,
        key.replace(/1/g, 'l').replace(/0/g, 'O'),
        key.replace(/1/g, 'I').replace(/0/g, 'o').toLowerCase(),
      ]) {
        const res = await steps.begin(device.username, typed);
        assert.equal(res.status, 200, `${JSON.stringify(typed)}: ${JSON.stringify(res.body)}`);
      }
      // The username may be typed in another case too.
      assert.equal((await steps.begin(device.username.toUpperCase(), key)).status, 200);
    });

    it('with an active TOTP authenticator: the key AND a valid code; every failure is the same 403 recovery_refused', async () => {
      const device = await t.client.signUp(uniqueName('totp'));
      const key = await downloadRecoveryKey(t.client, device);
      const { secret } = await activeTotp(t.client, device, t.clock.now());
      const fresh = () => {
        t.clock.advance(30_000);
        return totpCode(secret, t.clock.now());
      };

      const failures: [string, CallResult][] = [];
      const attempt = async (why: string, username: string, recoveryKey: string, code?: string) => {
        const res = await steps.begin(username, recoveryKey, code);
        expectRefused(res, why);
        failures.push([why, res]);
        t.clock.advance(1_000);
      };
      const code = fresh();
      await attempt('key alone', device.username, key);
      await attempt('key and a wrong code', device.username, key, wrongTotpCode(secret, t.clock.now()));
      await attempt('wrong key and the right code', device.username, otherKey(key), code);
      await attempt('wrong key alone', device.username, otherKey(key));
      await attempt('malformed key', device.username, 'not-a-key', code);
      const accountFailures = failures.length;
      await attempt('unknown username', uniqueName('nobody'), key, code);
      await attempt('invalid username', '!!', key, code);

      // One answer for all: nothing says which part was wrong.
      const reference = withoutRequestId(failures[0]![1].body);
      for (const [why, res] of failures) {
        assert.deepEqual(withoutRequestId(res.body), reference, why);
        assert.equal(res.headers.get('content-type'), failures[0]![1].headers.get('content-type'), why);
      }
      // Nothing changed: no ceremony was handed out, the account still has one passkey.
      assert.equal((await t.store.handle.db.selectFrom('ceremonies').select('id').where('account_id', '=', device.accountId).where('kind', '=', 'recovery').execute()).length, 0);

      // A code is checked (and its step spent) only with the right key (docs/decisions/009): the
      // code sent with the wrong key still works, within its step or one step of drift.
      const ok = await steps.begin(device.username, key, code);
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      const finished = await steps.finish(ok.body.ceremony_id, ok.body.options);
      assert.equal(finished.res.status, 200, JSON.stringify(finished.res.body));

      // Every attempt on the account is in its security log: the failures and the success.
      const log = await securityLog(t.client, { key: finished.key, token: finished.res.body.access_token });
      const attempts = log.filter((e) => isAttempt(e.kind));
      assert.deepEqual(attempts.map((e) => e.kind), ['recovery_succeeded', ...Array(accountFailures).fill('recovery_failed')], 'newest first');
      for (const entry of attempts) {
        assert.equal(entry.user_agent, ATTEMPT_UA);
        assert.equal(entry.ip, '127.0.0.1');
      }
    });

    it('a pending or removed authenticator does not count: the key alone recovers again', async () => {
      const device = await t.client.signUp(uniqueName('nototp'));
      const key = await downloadRecoveryKey(t.client, device);
      await enrollTotp(t.client, device, 'Never confirmed');
      assert.equal((await steps.begin(device.username, key)).status, 200, 'only a pending authenticator');

      const active = await activeTotp(t.client, device, t.clock.now());
      expectRefused(await steps.begin(device.username, key), 'active authenticator, key alone');
      const removed = await t.client.as(device, 'DELETE', `/api/v1/auth/totp/${active.id}`, { headers: { [STEP_UP_HEADER]: await stepUp(t.client, device) } });
      assert.equal(removed.status, 204);
      assert.equal((await steps.begin(device.username, key)).status, 200, 'after removing the authenticator');
    });

    it('finish: a spent, unknown, expired or foreign ceremony is 400 ceremony_invalid; DPoP is required', async () => {
      const device = await t.client.signUp(uniqueName('cer'));
      const key = await downloadRecoveryKey(t.client, device);
      const begin = await steps.begin(device.username, key);
      assert.equal(begin.status, 200);
      const first = await steps.finish(begin.body.ceremony_id, begin.body.options);
      assert.equal(first.res.status, 200, JSON.stringify(first.res.body));
      const again = await steps.finish(begin.body.ceremony_id, begin.body.options);
      assert.equal(again.res.status, 400);
      assert.equal(again.res.body.code, 'ceremony_invalid');

      const unknown = await steps.finish('cer_unknown', begin.body.options);
      assert.equal(unknown.res.body.code, 'ceremony_invalid');
      const login = await t.client.call('POST', '/api/v1/auth/login/begin');
      const foreign = await steps.finish(login.body.ceremony_id, begin.body.options);
      assert.equal(foreign.res.status, 400);
      assert.equal(foreign.res.body.code, 'ceremony_invalid', 'a login ceremony is not a recovery ceremony');

      const late = await steps.begin(device.username, key);
      t.clock.advance(300_001);
      const expired = await steps.finish(late.body.ceremony_id, late.body.options);
      assert.equal(expired.res.status, 400);
      assert.equal(expired.res.body.code, 'ceremony_invalid', 'expired');

      const noProof = await steps.begin(device.username, key);
      const credential = await new SoftwareAuthenticator().createCredential(noProof.body.options, t.client.publicOrigin);
      const unsigned = await t.client.call('POST', FINISH, { body: { ceremony_id: noProof.body.ceremony_id, credential }, headers: { 'idempotency-key': randomUUID() } });
      assert.equal(unsigned.status, 401);
      assert.equal(unsigned.body.code, 'invalid_dpop_proof');
      // Only the first finish added a passkey.
      assert.equal((await t.store.handle.db.selectFrom('passkeys').select('id').where('account_id', '=', device.accountId).execute()).length, 2);
    });

    it('malformed requests are 400 validation_failed and are not attempts', async () => {
      const device = await t.client.signUp(uniqueName('bad'));
      const key = await downloadRecoveryKey(t.client, device);
      for (const body of [
        { username: device.username },
        { recovery_key: key },
        { username: device.username, recovery_key: key, totp_code: '12345' },
        { username: device.username, recovery_key: key, totp_code: 'abcdef' },
        { username: device.username, recovery_key: key, extra: true },
        { username: device.username, recovery_key: 'x'.repeat(129) },
      ]) {
        const res = await t.client.call('POST', BEGIN, { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.code, 'validation_failed');
      }
      assert.ok(!(await securityLog(t.client, device)).some((e) => isAttempt(e.kind)));
    });

    describe('no stranger can keep the right key out (decision 250)', () => {
      let limited: TestApp;
      before(async () => {
        // Behind a proxy, so the test can speak as several client addresses.
        limited = await startTestApp(backend, { RECOVERY_KEY_HOLDER_PER_HOUR: '2', RECOVERY_PER_CLIENT_PER_HOUR: '20', TRUST_PROXY: '1' });
      });
      after(() => limited.close());
      const from = (ip: string) => ({ 'x-forwarded-for': ip });

      it('20 wrong attempts from a stranger, then more from other addresses, leave the victim\'s right key working', async () => {
        const s = recoverySteps(limited.client);
        const victim = await limited.client.signUp(uniqueName('victim'));
        const key = await downloadRecoveryKey(limited.client, victim);
        for (let i = 0; i < 20; i++) expectRefused(await s.begin(victim.username, otherKey(key), undefined, from('203.0.113.7')), `wrong key ${i + 1}`);
        // Past the address's allowance the stranger is refused...
        const blocked = await s.begin(victim.username, otherKey(key), undefined, from('203.0.113.7'));
        assert.equal(blocked.status, 429, JSON.stringify(blocked.body));
        assert.equal(blocked.body.code, 'too_many_attempts');
        assert.ok(Number(blocked.headers.get('retry-after')) >= 1, 'Retry-After');
        // ...and from five more addresses, by the same name in another case too.
        for (let n = 1; n <= 5; n++) expectRefused(await s.begin(victim.username.toUpperCase(), otherKey(key), undefined, from(`198.51.100.${n}`)), `address ${n}`);
        // The victim's right key works, from anywhere, at once.
        const right = await s.begin(victim.username, key, undefined, from('192.0.2.44'));
        assert.equal(right.status, 200, JSON.stringify(right.body));
        // Every failure is in the victim's log, where they can see it.
        assert.equal((await securityLog(limited.client, victim)).filter((e) => e.kind === 'recovery_failed').length, 25);
      });

      it('the right key from an address strangers exhausted still works: only wrong keys count against an address', async () => {
        const s = recoverySteps(limited.client);
        const carol = await limited.client.signUp(uniqueName('carol'));
        const key = await downloadRecoveryKey(limited.client, carol);
        for (let i = 0; i < 20; i++) expectRefused(await s.begin(uniqueName('nobody'), key, undefined, from('203.0.113.9')), `name ${i + 1}`);
        assert.equal((await s.begin(carol.username, otherKey(key), undefined, from('203.0.113.9'))).status, 429, 'a wrong key from there is refused');
        const right = await s.begin(carol.username, key, undefined, from('203.0.113.9'));
        assert.equal(right.status, 200, JSON.stringify(right.body));
        const logged = (await securityLog(limited.client, carol)).filter((e) => e.kind === 'recovery_succeeded');
        assert.deepEqual(logged.map((e) => e.ip), ['203.0.113.9']);
        // A new hour, a new allowance for the address.
        limited.clock.advance(3600_000);
        expectRefused(await s.begin(carol.username, otherKey(key), undefined, from('203.0.113.9')), 'the next hour');
      });

      it('with an authenticator app, the holder of the right key gets a few code guesses an hour, from any address', async () => {
        const s = recoverySteps(limited.client);
        const dave = await limited.client.signUp(uniqueName('dave'));
        const key = await downloadRecoveryKey(limited.client, dave);
        const { secret } = await activeTotp(limited.client, dave, limited.clock.now());
        expectRefused(await s.begin(dave.username, key, wrongTotpCode(secret, limited.clock.now()), from('203.0.113.20')), 'first wrong code');
        expectRefused(await s.begin(dave.username, key, wrongTotpCode(secret, limited.clock.now()), from('203.0.113.21')), 'second wrong code');
        for (const ip of ['203.0.113.22', '192.0.2.1']) {
          const third = await s.begin(dave.username, key, totpCode(secret, limited.clock.now()), from(ip));
          assert.equal(third.status, 429, `${ip}: ${JSON.stringify(third.body)}`);
          assert.equal(third.body.code, 'too_many_attempts');
        }
        // No ceremony was handed out past the limit; strangers' wrong keys never touched this count.
        assert.equal((await limited.store.handle.db.selectFrom('ceremonies').select('id').where('account_id', '=', dave.accountId).execute()).length, 0);
        limited.clock.advance(3600_000);
        assert.equal((await s.begin(dave.username, key, totpCode(secret, limited.clock.now()), from('192.0.2.1'))).status, 200);
      });
    });

    describe('the key never appears in logs', () => {
      let lines: string[];
      let client: TestClient;
      let clock: ReturnType<typeof createManualClock>;
      let close: () => Promise<void>;
      before(async () => {
        lines = [];
        ({ client, clock, close } = await startLoggedApp(backend, lines));
      });
      after(() => close());

      it('download, failed and successful recovery, TOTP enrolment: no log line holds the key or the secret', async () => {
        const s = recoverySteps(client);
        const device = await client.signUp(uniqueName('logged'));
        const key = await downloadRecoveryKey(client, device);
        const { secret } = await activeTotp(client, device, clock.now());
        expectRefused(await s.begin(device.username, key), 'key alone');
        expectRefused(await s.begin(device.username, key, wrongTotpCode(secret, clock.now())), 'wrong code');
        clock.advance(30_000);
        const ok = await s.begin(device.username, key.toLowerCase(), totpCode(secret, clock.now()));
        assert.equal(ok.status, 200, JSON.stringify(ok.body));
        assert.equal((await s.finish(ok.body.ceremony_id, ok.body.options)).res.status, 200);

        // One record per request: those that carried the key or a code are there, without them.
        for (const request of ['GET /api/v1/auth/recovery-key 200', 'POST /api/v1/auth/recovery/begin 200', 'POST /api/v1/auth/recovery/finish 200']) {
          assert.ok(lines.some((line) => line.includes(`"msg":"${request}`)), `${request} was logged`);
        }
        const compact = key.replace(/-/g, '');
        const forbidden = [key, compact, key.toLowerCase(), compact.toLowerCase(), secret];
        for (const line of lines) {
          for (const value of forbidden) assert.ok(!line.includes(value), `a log line holds a secret: ${line.slice(0, 300)}`);
        }
      });
    });
  });
}

/** The service like startTestApp, but logging everything (level trace) into `lines`. */
async function startLoggedApp(backend: TestBackend, lines: string[]) {
  const database = await backend.open();
  const config = testConfig(database.databaseUrl, { RECOVERY_PER_CLIENT_PER_HOUR: '100000', RECOVERY_KEY_HOLDER_PER_HOUR: '100000' });
  const clock = createManualClock(Date.now());
  const { app } = await buildApp({ config, store: database.store, clock, logger: { level: 'trace', stream: { write: (line: string) => lines.push(line) } } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const document = await (await fetch(`${baseUrl}/api/v1/openapi.json`)).json();
  const client = new TestClient(baseUrl, PUBLIC_ORIGIN, createContractChecker(document), clock.now);
  return {
    client,
    clock,
    async close() {
      await app.close();
      await database.cleanup();
    },
  };
}
