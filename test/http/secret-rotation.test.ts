// Rotating the sealing key (decision 110), on both backends, through the real HTTP API: the
// service restarts with a new SECRET_KEY and the old one in SECRET_KEYS_ACCEPTED, everything
// sealed or hashed under the old key keeps working (sessions, TOTP, recovery, share links,
// idempotent replays, join codes, and values in the first, untagged format), the rotation
// re-seals everything while requests go on, and then the old key can be dropped.
import assert from 'node:assert/strict';
import { createCipheriv, randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import type { VidApp } from '../../src/app.js';
import { createManualClock } from '../../src/platform/clock.js';
import { keyId } from '../../src/platform/crypto/secret-key.js';
import type { Store } from '../../src/platform/store/store.js';
import { PUBLIC_ORIGIN, TEST_SECRET_KEY, testConfig } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { TestClient, uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { createContractChecker } from '../helpers/contract.js';
import { issueCode, redeemOk } from '../helpers/join.js';
import { activeTotp, downloadRecoveryKey, totpCode } from '../helpers/step-up.js';

const OLD_KEY = TEST_SECRET_KEY;
const NEW_KEY = randomBytes(32).toString('base64url');
const SEALED = [
  ['totp_authenticators', 'secret_sealed'],
  ['recovery_keys', 'key_sealed'],
  ['share_links', 'token_sealed'],
  ['idempotency_records', 'body'],
] as const;

/** The first sealed format ("v1", no key id), as values written before keyrings look. */
function sealV1(key: string, plaintext: string, purpose: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(key, 'base64url'), iv);
  cipher.setAAD(Buffer.from(purpose));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, body, cipher.getAuthTag()].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

for (const backend of backends) {
  describe(`secret rotation [${backend.name}]`, { skip: backend.skip }, () => {
    let database: Awaited<ReturnType<typeof backend.open>>;
    const clock = createManualClock(Date.now());
    let running: { vid: VidApp; client: TestClient } | undefined;

    /** The service on the suite's database with these keys (the previous one stopped first, as in a restart). */
    async function restartWith(env: Record<string, string>): Promise<TestClient> {
      await running?.vid.app.close();
      const vid = await buildApp({ config: testConfig(database.databaseUrl, env), store: database.store, clock, logger: false });
      await vid.app.listen({ host: '127.0.0.1', port: 0 });
      const baseUrl = `http://127.0.0.1:${(vid.app.server.address() as AddressInfo).port}`;
      const client = new TestClient(baseUrl, PUBLIC_ORIGIN, createContractChecker(JSON.parse(JSON.stringify(vid.app.swagger()))), clock.now);
      running = { vid, client };
      return client;
    }
    const store = (): Store => database.store;
    const sealedValues = async () => {
      const values: string[] = [];
      for (const [table, column] of SEALED) {
        const rows = await store().handle.db.selectFrom(table).select(column).where(column, 'is not', null).execute();
        values.push(...rows.map((row: Record<string, string>) => row[column]!));
      }
      return values;
    };

    before(async () => {
      database = await backend.open();
    });
    after(async () => {
      await running?.vid.app.close();
      await database.cleanup();
    });

    let alice: Device;
    let totp: { id: string; secret: string };
    let recoveryKey: string;
    let linkToken: string;
    let idempotent: { key: string; body: unknown; first: unknown };

    /** Everything sealed or hashed under a key, exercised through the API; each call uses a fresh TOTP step. */
    async function everythingWorks(client: TestClient, label: string): Promise<void> {
      assert.equal((await client.as(alice, 'GET', '/api/v1/me')).status, 200, `${label}: the session`);
      clock.advance(30_000);
      const recovery = await client.call('POST', '/api/v1/auth/recovery/begin', { body: { username: alice.username, recovery_key: recoveryKey, totp_code: totpCode(totp.secret, clock.now()) } });
      assert.equal(recovery.status, 200, `${label}: recovery key and TOTP code: ${JSON.stringify(recovery.body)}`);
      assert.equal(await downloadRecoveryKey(client, alice), recoveryKey, `${label}: the recovery key reads back`);
      const resolved = await client.call('GET', `/api/v1/share-links/resolve?token=${linkToken}`);
      assert.equal(resolved.status, 200, `${label}: the share link's hash finds it`);
      const replay = await client.as(alice, 'POST', '/api/v1/me/fields', { body: idempotent.body, headers: { 'idempotency-key': idempotent.key } });
      assert.equal(replay.headers.get('vid-idempotent-replay'), 'true', `${label}: the sealed reply replays`);
      assert.deepEqual(replay.body, idempotent.first);
    }

    it('keeps everything working across a new key, a rotation under load, and the old key dropped', async () => {
      // Under the old key: a person with a TOTP app, a recovery key, a share link and an idempotent write.
      let client = await restartWith({ SECRET_KEY: OLD_KEY, RECOVERY_PER_CLIENT_PER_HOUR: '1000', RECOVERY_KEY_HOLDER_PER_HOUR: '1000' });
      alice = await client.signUp(uniqueName('alice'));
      totp = await activeTotp(client, alice, clock.now());
      recoveryKey = await downloadRecoveryKey(client, alice);
      const work = (await client.as(alice, 'POST', '/api/v1/profiles', { body: { name: 'Work', public: false }, headers: { 'idempotency-key': randomUUID() } })).body;
      linkToken = (await client.as(alice, 'POST', '/api/v1/share-links', { body: { profile_id: work.id, auto_approve: false }, headers: { 'idempotency-key': randomUUID() } })).body.token;
      const key = randomUUID();
      const body = { type: 'email', value: 'alice@example.org' };
      idempotent = { key, body, first: (await client.as(alice, 'POST', '/api/v1/me/fields', { body, headers: { 'idempotency-key': key } })).body };
      // One value in the first format (no key id), as a database from before keyrings holds it.
      const legacy = sealV1(OLD_KEY, totp.secret, 'totp-secret');
      await store().handle.db.updateTable('totp_authenticators').set({ secret_sealed: legacy }).where('id', '=', totp.id).execute();
      await everythingWorks(client, 'old key');
      const joinCode = await issueCode(client, alice);

      // The new key seals; the old one is accepted. Every value still under the old key works.
      client = await restartWith({ SECRET_KEY: NEW_KEY, SECRET_KEYS_ACCEPTED: OLD_KEY, RECOVERY_PER_CLIENT_PER_HOUR: '1000', RECOVERY_KEY_HOLDER_PER_HOUR: '1000' });
      await everythingWorks(client, 'new key, old accepted');
      // A join code issued under the old key still redeems (codes are never re-hashed; they live 2 minutes).
      await redeemOk(client, alice.username, joinCode.code);

      // The rotation, in batches of 2, while the service keeps taking requests.
      const oldPrefix = `v2.${keyId(Buffer.from(OLD_KEY, 'base64url'))}.`;
      const newPrefix = `v2.${keyId(Buffer.from(NEW_KEY, 'base64url'))}.`;
      const under = async (prefix: string) => (await sealedValues()).filter((v) => v.startsWith(prefix)).length;
      assert.ok((await under(oldPrefix)) >= 3, 'values under the old key before the rotation');
      const [reports] = await Promise.all([
        running!.vid.rotateSecrets({ batchSize: 2 }),
        (async () => {
          for (let i = 0; i < 5; i++) assert.equal((await client.as(alice, 'GET', '/api/v1/me/fields')).status, 200);
        })(),
      ]);
      const byColumn = Object.fromEntries(reports.map((r) => [r.column, r]));
      assert.equal(byColumn['totp_authenticators.secret_sealed']!.resealed, 1);
      assert.equal(byColumn['recovery_keys.key_sealed']!.resealed, 1);
      assert.equal(byColumn['share_links.token_sealed']!.resealed, 1);
      assert.ok(byColumn['idempotency_records.body']!.resealed >= 1);
      assert.ok(reports.every((r) => r.remaining === 0), JSON.stringify(reports));
      const values = await sealedValues();
      assert.ok(values.length >= 4);
      assert.deepEqual(values.filter((v) => !v.startsWith(newPrefix)), [], 'every sealed value is under the new key');
      // A second run finds nothing to do.
      assert.ok((await running!.vid.rotateSecrets()).every((r) => r.resealed === 0 && r.remaining === 0));

      // The old key dropped: nothing breaks, and the share link is found by its re-computed hash.
      client = await restartWith({ SECRET_KEY: NEW_KEY, RECOVERY_PER_CLIENT_PER_HOUR: '1000', RECOVERY_KEY_HOLDER_PER_HOUR: '1000' });
      await everythingWorks(client, 'new key only');
    });

    it('a node missing the old key: sessions survive (hashed, not sealed); links hashed under it are not found', async () => {
      const client = await restartWith({ SECRET_KEY: randomBytes(32).toString('base64url') });
      assert.equal((await client.as(alice, 'GET', '/api/v1/me')).status, 200);
      assert.equal((await client.call('GET', `/api/v1/share-links/resolve?token=${linkToken}`)).status, 404);
    });

    it('every sealed column in the database is declared, so no rotation leaves one behind', async () => {
      await restartWith({ SECRET_KEY: NEW_KEY });
      const declared = new Set((await running!.vid.rotateSecrets()).map((r) => r.column));
      const tables = await store().handle.db.introspection.getTables();
      const sealedColumns = tables.flatMap((table) => table.columns.filter((c) => c.name.endsWith('_sealed')).map((c) => `${table.name}.${c.name}`));
      assert.ok(sealedColumns.length >= 3);
      assert.deepEqual(sealedColumns.filter((c) => !declared.has(c)), [], 'sealed columns no rotation re-seals');
      assert.ok(declared.has('idempotency_records.body'));
    });
  });
}
