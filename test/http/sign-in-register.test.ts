// Sign-up ceremonies (PRODUCT §1 register/begin, register/finish; STANDARDS "WebAuthn Level 3";
// docs/decisions/006): atomic username uniqueness, single-use 300 s challenges, attestation
// checks, DPoP binding of the first passkey and session.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeCBOR, encodeCBOR } from '@levischuck/tiny-cbor';
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { SoftwareAuthenticator } from '../helpers/authenticator.js';
import { uniqueName } from '../helpers/client.js';
import type { CallResult } from '../helpers/client.js';
import type { DpopKey } from '../helpers/dpop.js';
import { expectProblem } from '../helpers/problem.js';

const cbor = {
  // A copy: the decoder reads the whole underlying buffer, and Node's small Buffers share a pool.
  decode: (bytes: Uint8Array) => decodeCBOR(new Uint8Array(bytes)),
  encode: (value: unknown) => encodeCBOR(value as never),
};

const BEGIN = '/api/v1/auth/register/begin';
const FINISH = '/api/v1/auth/register/finish';

interface Begun {
  ceremony_id: string;
  options: PublicKeyCredentialCreationOptionsJSON;
}

/** A name made only of letters, so confusable variants of it differ in exactly one place. */
function letters(prefix: string): string {
  const alphabet = 'abcdefghijkmnpqrstuvwxyz'; // no l or o: they are the targets of 1 and 0
  let out = prefix;
  for (let i = 0; i < 8; i++) out += alphabet[Math.floor(Math.random() * alphabet.length)];
  return out;
}

function decodeClientData(credential: RegistrationResponseJSON): Record<string, unknown> {
  return JSON.parse(Buffer.from(credential.response.clientDataJSON, 'base64url').toString('utf8')) as Record<string, unknown>;
}

function encodeClientData(credential: RegistrationResponseJSON, data: Record<string, unknown>): void {
  credential.response.clientDataJSON = Buffer.from(JSON.stringify(data), 'utf8').toString('base64url');
}

for (const backend of backends) {
  describe(`sign-in: register/begin and register/finish [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    const db = () => t.store.handle.db;

    async function begin(username: string): Promise<Begun> {
      const res = await t.client.call('POST', BEGIN, { body: { username } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body as Begun;
    }

    async function finish(ceremonyId: string, username: string, credential: unknown, key?: DpopKey | null): Promise<CallResult> {
      const proofKey = key === null ? undefined : (key ?? (await t.client.newKey()));
      return t.client.call('POST', FINISH, { body: { ceremony_id: ceremonyId, username, credential }, key: proofKey });
    }

    async function counts() {
      const accounts = await db().selectFrom('accounts').select('id').execute();
      const passkeys = await db().selectFrom('passkeys').select('id').execute();
      const sessions = await db().selectFrom('sessions').select('id').execute();
      return { accounts: accounts.length, passkeys: passkeys.length, sessions: sessions.length };
    }

    /** Runs a refused finish and proves that no account, passkey or session was written. */
    async function expectRefusal(run: () => Promise<CallResult>, status: number, code: string): Promise<CallResult> {
      const before = await counts();
      const res = await run();
      expectProblem(res, status, code);
      assert.deepEqual(await counts(), before, 'a refused sign-up must write nothing');
      return res;
    }

    it('begin returns creation options per our policy (discoverable, UV required, 300 s, random user.id)', async () => {
      const name = uniqueName('opts');
      const { ceremony_id, options } = await begin(name);
      assert.match(ceremony_id, /^cer_/);
      assert.equal(options.rp.id, 'localhost');
      assert.equal(options.timeout, 300_000);
      assert.equal(options.authenticatorSelection?.residentKey, 'required');
      assert.equal(options.authenticatorSelection?.requireResidentKey, true);
      assert.equal(options.authenticatorSelection?.userVerification, 'required');
      assert.deepEqual(options.pubKeyCredParams.map((p) => p.alg).sort((x, y) => x - y), [-257, -8, -7]);
      // WebAuthn L3 §5.4.3: user.id is random bytes (we use 32), never the name.
      const handle = Buffer.from(options.user.id, 'base64url');
      assert.equal(handle.length, 32);
      assert.ok(!handle.toString('latin1').includes(name.toLowerCase()));
      assert.ok(Buffer.from(options.challenge, 'base64url').length >= 16);
    });

    it('finish creates the account, the passkey bound to the proof key, and a trusted session', async () => {
      const name = uniqueName('Fin');
      const key = await t.client.newKey();
      const authenticator = new SoftwareAuthenticator();
      const { ceremony_id, options } = await begin(name);
      const credential = await authenticator.createCredential(options, t.client.publicOrigin);
      const res = await finish(ceremony_id, name, credential, key);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.account.username, name.toLowerCase(), 'shown in its canonical form');
      assert.equal(res.body.tokens.trusted, true);
      assert.equal(res.headers.get('cache-control'), 'no-store');

      const passkey = await db().selectFrom('passkeys').selectAll().where('id', '=', res.body.passkey_id).executeTakeFirstOrThrow();
      assert.equal(passkey.account_id, res.body.account.id);
      assert.equal(passkey.credential_id, credential.id);
      assert.equal(passkey.dpop_jkt, key.jkt, 'the passkey row stores the registering key thumbprint');
      assert.equal(Number(passkey.counter), 0);
      assert.equal(passkey.last_used_at, null);
      assert.equal(passkey.flagged_at, null);

      const account = await db().selectFrom('accounts').selectAll().where('id', '=', res.body.account.id).executeTakeFirstOrThrow();
      assert.equal(account.user_handle, options.user.id);
      assert.equal(account.username_canonical, name.toLowerCase());

      const session = await db().selectFrom('sessions').selectAll().where('id', '=', res.body.tokens.session_id).executeTakeFirstOrThrow();
      assert.equal(session.jkt, key.jkt);
      assert.equal(session.trusted, 1);
      const me = await t.client.call('GET', '/api/v1/me', { key, token: res.body.tokens.access_token });
      assert.equal(me.status, 200);
    });

    for (let round = 1; round <= 3; round++) {
      it(`two simultaneous finishes for one username: one 201, one 409 username_taken, one account (round ${round})`, async () => {
        const name = letters('race');
        const [a, b] = await Promise.all([begin(name), begin(name)]);
        const [authA, authB] = [new SoftwareAuthenticator(), new SoftwareAuthenticator()];
        const credA = await authA.createCredential(a.options, t.client.publicOrigin);
        const credB = await authB.createCredential(b.options, t.client.publicOrigin);
        const [keyA, keyB] = await Promise.all([t.client.newKey(), t.client.newKey()]);
        const results = await Promise.all([finish(a.ceremony_id, name, credA, keyA), finish(b.ceremony_id, name, credB, keyB)]);
        const statuses = results.map((r) => r.status).sort((x, y) => x - y);
        assert.deepEqual(statuses, [201, 409], JSON.stringify(results.map((r) => r.body)));
        const loser = results.find((r) => r.status === 409) as CallResult;
        assert.equal(loser.body.code, 'username_taken');

        const rows = await db().selectFrom('accounts').select('id').where('username_canonical', '=', name).execute();
        assert.equal(rows.length, 1, 'exactly one account row');
        const passkeys = await db().selectFrom('passkeys').select('account_id').where('credential_id', 'in', [credA.id, credB.id]).execute();
        assert.equal(passkeys.length, 1, 'only the winner stored a passkey');
        assert.equal(passkeys[0]?.account_id, rows[0]?.id);
        const sessions = await db().selectFrom('sessions').select('id').where('account_id', '=', rows[0]?.id as string).execute();
        assert.equal(sessions.length, 1);
      });
    }

    for (let round = 1; round <= 2; round++) {
      it(`two simultaneous finishes for confusable names: one 201, one 409 username_confusable (round ${round})`, async () => {
        const stem = letters('x');
        const plain = `paypal${stem}`;
        const lookalike = `paypa1${stem}`;
        const [a, b] = await Promise.all([begin(plain), begin(lookalike)]);
        const credA = await new SoftwareAuthenticator().createCredential(a.options, t.client.publicOrigin);
        const credB = await new SoftwareAuthenticator().createCredential(b.options, t.client.publicOrigin);
        const results = await Promise.all([finish(a.ceremony_id, plain, credA), finish(b.ceremony_id, lookalike, credB)]);
        assert.deepEqual(results.map((r) => r.status).sort((x, y) => x - y), [201, 409], JSON.stringify(results.map((r) => r.body)));
        const loser = results.find((r) => r.status === 409) as CallResult;
        assert.equal(loser.body.code, 'username_confusable');
        const rows = await db().selectFrom('accounts').select('id').where('username_canonical', 'in', [plain, lookalike]).execute();
        assert.equal(rows.length, 1, 'exactly one of the two confusable names exists');
      });
    }

    it('a ceremony answers once: a second finish is 400 ceremony_invalid', async () => {
      const name = uniqueName('reuse');
      const { ceremony_id, options } = await begin(name);
      const credential = await new SoftwareAuthenticator().createCredential(options, t.client.publicOrigin);
      const first = await finish(ceremony_id, name, credential);
      assert.equal(first.status, 201);
      await expectRefusal(() => finish(ceremony_id, name, credential), 400, 'ceremony_invalid');
      // Another authenticator answering the same (used) challenge fares no better.
      const other = await new SoftwareAuthenticator().createCredential(options, t.client.publicOrigin);
      await expectRefusal(() => finish(ceremony_id, `${name}b`, other), 400, 'ceremony_invalid');
    });

    it('a ceremony finished after 300 s is 400 ceremony_invalid and writes nothing', async () => {
      const name = uniqueName('late');
      const { ceremony_id, options } = await begin(name);
      const credential = await new SoftwareAuthenticator().createCredential(options, t.client.publicOrigin);
      t.clock.advance(301_000);
      await expectRefusal(() => finish(ceremony_id, name, credential), 400, 'ceremony_invalid');
      // The name stays free.
      const check = await t.client.call('POST', '/api/v1/auth/username/check', { body: { username: name } });
      assert.equal(check.body.available, true);
    });

    it('a ceremony finished just inside 300 s still works', async () => {
      const name = uniqueName('intime');
      const { ceremony_id, options } = await begin(name);
      const credential = await new SoftwareAuthenticator().createCredential(options, t.client.publicOrigin);
      t.clock.advance(299_000);
      const res = await finish(ceremony_id, name, credential);
      assert.equal(res.status, 201, JSON.stringify(res.body));
    });

    it('a login ceremony id used for register is 400 ceremony_invalid, and stays usable for login', async () => {
      const holder = new SoftwareAuthenticator();
      await t.client.signUp(uniqueName('holder'), holder);
      const login = await t.client.call('POST', '/api/v1/auth/login/begin');
      assert.equal(login.status, 200);
      const name = uniqueName('cross');
      const { options } = await begin(name);
      const credential = await new SoftwareAuthenticator().createCredential(
        { ...options, challenge: login.body.options.challenge },
        t.client.publicOrigin,
      );
      await expectRefusal(() => finish(login.body.ceremony_id, name, credential), 400, 'ceremony_invalid');
      const assertion = await holder.getAssertion(login.body.options, t.client.publicOrigin);
      const loggedIn = await t.client.call('POST', '/api/v1/auth/login/finish', {
        body: { ceremony_id: login.body.ceremony_id, credential: assertion },
        key: await t.client.newKey(),
      });
      assert.equal(loggedIn.status, 200, JSON.stringify(loggedIn.body));
    });

    it('a username differing from the one begin saw is 400 ceremony_mismatch', async () => {
      const name = uniqueName('mismatch');
      const { ceremony_id, options } = await begin(name);
      const credential = await new SoftwareAuthenticator().createCredential(options, t.client.publicOrigin);
      await expectRefusal(() => finish(ceremony_id, `${name}z`, credential), 400, 'ceremony_mismatch');
      // Even a different case of the same name is another typed form than begin saw.
      const second = await begin(name);
      const credential2 = await new SoftwareAuthenticator().createCredential(second.options, t.client.publicOrigin);
      await expectRefusal(() => finish(second.ceremony_id, name.toUpperCase(), credential2), 400, 'ceremony_mismatch');
    });

    describe('attestation verification', () => {
      it('a flipped bit in the clientDataJSON challenge is 400 invalid_attestation, nothing written', async () => {
        const name = uniqueName('tamper');
        const { ceremony_id, options } = await begin(name);
        const credential = await new SoftwareAuthenticator().createCredential(options, t.client.publicOrigin);
        const data = decodeClientData(credential);
        const challenge = Buffer.from(String(data.challenge), 'base64url');
        challenge[0] = (challenge[0] ?? 0) ^ 0x01;
        data.challenge = challenge.toString('base64url');
        encodeClientData(credential, data);
        await expectRefusal(() => finish(ceremony_id, name, credential), 400, 'invalid_attestation');
      });

      it('a credential made for another origin is 400 invalid_attestation', async () => {
        const name = uniqueName('origin');
        const { ceremony_id, options } = await begin(name);
        const credential = await new SoftwareAuthenticator().createCredential(options, 'https://evil.example');
        await expectRefusal(() => finish(ceremony_id, name, credential), 400, 'invalid_attestation');
      });

      it('a credential scoped to another RP id is 400 invalid_attestation (expectedRPID is checked)', async () => {
        const name = uniqueName('rpid');
        const { ceremony_id, options } = await begin(name);
        const credential = await new SoftwareAuthenticator().createCredential({ ...options, rp: { ...options.rp, id: 'evil.example' } }, t.client.publicOrigin);
        await expectRefusal(() => finish(ceremony_id, name, credential), 400, 'invalid_attestation');
      });

      it('clientDataJSON of type webauthn.get is 400 invalid_attestation', async () => {
        const name = uniqueName('type');
        const { ceremony_id, options } = await begin(name);
        const credential = await new SoftwareAuthenticator().createCredential(options, t.client.publicOrigin);
        encodeClientData(credential, { ...decodeClientData(credential), type: 'webauthn.get' });
        await expectRefusal(() => finish(ceremony_id, name, credential), 400, 'invalid_attestation');
      });

      it('an authenticator without user verification is 400 invalid_attestation', async () => {
        const name = uniqueName('nouv');
        const { ceremony_id, options } = await begin(name);
        const credential = await new SoftwareAuthenticator({ userVerification: false }).createCredential(options, t.client.publicOrigin);
        await expectRefusal(() => finish(ceremony_id, name, credential), 400, 'invalid_attestation');
      });

      it('an authenticator without user presence is 400 invalid_attestation', async () => {
        const name = uniqueName('noup');
        const { ceremony_id, options } = await begin(name);
        const credential = await new SoftwareAuthenticator({ userPresence: false }).createCredential(options, t.client.publicOrigin);
        await expectRefusal(() => finish(ceremony_id, name, credential), 400, 'invalid_attestation');
      });

      it('backed up without backup eligibility (BS without BE) is 400 invalid_attestation', async () => {
        const name = uniqueName('bsbe');
        const { ceremony_id, options } = await begin(name);
        const credential = await new SoftwareAuthenticator({ backupEligible: false, backedUp: true }).createCredential(options, t.client.publicOrigin);
        await expectRefusal(() => finish(ceremony_id, name, credential), 400, 'invalid_attestation');
      });

      it('packed self attestation is accepted (decision 006)', async () => {
        const name = uniqueName('packed');
        const { ceremony_id, options } = await begin(name);
        const credential = await new SoftwareAuthenticator({ attestation: 'packed' }).createCredential(options, t.client.publicOrigin);
        const res = await finish(ceremony_id, name, credential);
        assert.equal(res.status, 201, JSON.stringify(res.body));
      });

      it('a credential id of 1100 bytes is refused by the body schema (400 validation_failed), nothing written', async () => {
        const name = uniqueName('longid');
        const { ceremony_id, options } = await begin(name);
        const credential = await new SoftwareAuthenticator({ credentialIdLength: 1100 }).createCredential(options, t.client.publicOrigin);
        assert.equal(credential.id.length, 1467); // base64url of 1100 bytes, over the schema's maxLength 1400
        const res = await expectRefusal(() => finish(ceremony_id, name, credential), 400, 'validation_failed');
        const paths = (res.body.errors as { path: string }[]).map((e) => e.path);
        assert.ok(paths.includes('/credential/id'), JSON.stringify(paths));
        // Schema validation runs before the handler: the ceremony was not consumed.
        const ok = await finish(ceremony_id, name, await new SoftwareAuthenticator().createCredential(options, t.client.publicOrigin));
        assert.equal(ok.status, 201, JSON.stringify(ok.body));
      });

      it('a credential id of 1024 bytes passes the schema but is 400 invalid_attestation (WebAuthn L3 §7.1 step 26)', async () => {
        const name = uniqueName('id1024');
        const { ceremony_id, options } = await begin(name);
        const credential = await new SoftwareAuthenticator({ credentialIdLength: 1024 }).createCredential(options, t.client.publicOrigin);
        assert.ok(credential.id.length <= 1400);
        await expectRefusal(() => finish(ceremony_id, name, credential), 400, 'invalid_attestation');
      });

      it('a credential id of 1023 bytes (the limit) is accepted', async () => {
        const name = uniqueName('id1023');
        const { ceremony_id, options } = await begin(name);
        const credential = await new SoftwareAuthenticator({ credentialIdLength: 1023 }).createCredential(options, t.client.publicOrigin);
        const res = await finish(ceremony_id, name, credential);
        assert.equal(res.status, 201, JSON.stringify(res.body));
      });

      it('a credential id already registered to another account is 409 credential_exists, nothing written', async () => {
        const owner = new SoftwareAuthenticator();
        await t.client.signUp(uniqueName('owner'), owner);
        const taken = owner.credentials[0];
        assert.ok(taken);
        const name = uniqueName('dupcred');
        const { ceremony_id, options } = await begin(name);
        const credential = await new SoftwareAuthenticator().createCredential(options, t.client.publicOrigin);
        // With attestation "none" nothing signs authData at registration, so a client can claim any
        // credential id: rewrite the attested credential id (§6.5.2: after rpIdHash 32, flags 1,
        // signCount 4, aaguid 16, length 2) to the owner's. The server must refuse the duplicate.
        const attestation = cbor.decode(Buffer.from(credential.response.attestationObject, 'base64url')) as Map<string, unknown>;
        const authData = Buffer.from(attestation.get('authData') as Uint8Array);
        Buffer.from(taken.id, 'base64url').copy(authData, 32 + 1 + 4 + 16 + 2);
        attestation.set('authData', authData);
        credential.response.attestationObject = Buffer.from(cbor.encode(attestation)).toString('base64url');
        credential.response.authenticatorData = authData.toString('base64url');
        credential.id = taken.id;
        credential.rawId = taken.id;
        await expectRefusal(() => finish(ceremony_id, name, credential), 409, 'credential_exists');
      });
    });

    describe('DPoP and body validation', () => {
      it('finish without a DPoP header is 401 invalid_dpop_proof and does not consume the ceremony', async () => {
        const name = uniqueName('nodpop');
        const { ceremony_id, options } = await begin(name);
        const credential = await new SoftwareAuthenticator().createCredential(options, t.client.publicOrigin);
        const res = await expectRefusal(() => finish(ceremony_id, name, credential, null), 401, 'invalid_dpop_proof');
        assert.match(res.headers.get('www-authenticate') ?? '', /^DPoP .*error="invalid_dpop_proof"/);
        // The proof is checked before the ceremony is taken: a retry with a proof succeeds.
        const key = await t.client.newKey();
        const retry = await finish(ceremony_id, name, credential, key);
        assert.equal(retry.status, 201, JSON.stringify(retry.body));
        const passkey = await db().selectFrom('passkeys').select('dpop_jkt').where('id', '=', retry.body.passkey_id).executeTakeFirstOrThrow();
        assert.equal(passkey.dpop_jkt, key.jkt);
      });

      it('a proof for another URL is 401 invalid_dpop_proof', async () => {
        const name = uniqueName('htu');
        const { ceremony_id, options } = await begin(name);
        const credential = await new SoftwareAuthenticator().createCredential(options, t.client.publicOrigin);
        const key = await t.client.newKey();
        await expectRefusal(
          () => t.client.call('POST', FINISH, {
            body: { ceremony_id, username: name, credential },
            key,
            proofOptions: { htu: `${t.client.publicOrigin}/api/v1/auth/login/finish` },
          }),
          401,
          'invalid_dpop_proof',
        );
      });

      it('malformed bodies are 400 validation_failed and leave the ceremony usable', async () => {
        const name = uniqueName('malformed');
        const { ceremony_id, options } = await begin(name);
        const credential = await new SoftwareAuthenticator().createCredential(options, t.client.publicOrigin);

        const missing = await expectRefusal(
          () => t.client.call('POST', FINISH, { body: { ceremony_id, username: name }, key: undefined }),
          400,
          'validation_failed',
        );
        assert.ok((missing.body.errors as { path: string }[]).some((e) => e.path === '/credential'), JSON.stringify(missing.body.errors));

        const badType = await expectRefusal(() => finish(ceremony_id, name, { ...credential, type: 'foo' }), 400, 'validation_failed');
        assert.ok((badType.body.errors as { path: string }[]).some((e) => e.path === '/credential/type'), JSON.stringify(badType.body.errors));

        const extra = await expectRefusal(() => t.client.call('POST', FINISH, {
          body: { ceremony_id, username: name, credential, admin: true },
          key: undefined,
        }), 400, 'validation_failed');
        assert.ok((extra.body.errors as { path: string }[]).some((e) => e.path === '/admin'));

        const noResponse = await expectRefusal(() => finish(ceremony_id, name, { ...credential, response: undefined }), 400, 'validation_failed');
        assert.ok(Array.isArray(noResponse.body.errors));

        const notJson = await t.client.call('POST', FINISH, { rawBody: '{"ceremony_id":', headers: { 'content-type': 'application/json' } });
        assert.equal(notJson.status, 400);
        assert.equal(notJson.body.code, 'invalid_json');

        const ok = await finish(ceremony_id, name, credential);
        assert.equal(ok.status, 201, JSON.stringify(ok.body));
      });
    });
  });
}
