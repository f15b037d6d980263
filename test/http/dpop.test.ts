import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SignJWT, calculateJwkThumbprint, exportJWK } from 'jose';
import type { JWK } from 'jose';
import { buildApp } from '../../src/app.js';
import { sha256Base64url } from '../../src/platform/crypto/tokens.js';
import { PUBLIC_ORIGIN, startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import type { CallResult, Device } from '../helpers/client.js';
import { createContractChecker } from '../helpers/contract.js';
import type { ContractChecker } from '../helpers/contract.js';
import { createDpopKey } from '../helpers/dpop.js';
import type { DpopKey } from '../helpers/dpop.js';
import { expectProblem } from '../helpers/problem.js';

// RFC 9449 through the real HTTP API: the DPoP proof checks, token binding, replay, expiry,
// revocation and renewal, with the exact status, problem code and WWW-Authenticate challenge.

type Alg = 'ES256' | 'ES384' | 'EdDSA';

const CHALLENGE = 'DPoP algs="ES256 ES384 EdDSA"';
const ME = '/api/v1/me';
const ME_URL = `${PUBLIC_ORIGIN}${ME}`;
const RENEW = '/api/v1/auth/token/renew';
const LOGOUT = '/api/v1/auth/logout';
/** DPOP_IAT_WINDOW_S and DPOP_CLOCK_SKEW_S defaults. */
const WINDOW_S = 60;
const SKEW_S = 5;
/** ACCESS_TOKEN_TTL_S default. */
const ACCESS_TTL_MS = 600_000;

/**
 * The refusal: status, problem code, and the challenge. `error` undefined means the challenge
 * alone (no credentials sent, RFC 6750 §3.1); otherwise the challenge with that error.
 */
function assertRefused(res: CallResult | RawResult, status: number, code: string, error?: string): void {
  expectProblem(res, status, code);
  const www = res.headers.get('www-authenticate');
  if (error === undefined) {
    assert.equal(www, CHALLENGE);
  } else {
    assert.ok(www?.startsWith(`${CHALLENGE}, error="${error}"`), `WWW-Authenticate was ${www}`);
  }
}

interface RawResult {
  status: number;
  headers: { get(name: string): string | null };
  body: any;
}

/**
 * A request through node:http with a raw header list, so a header can be sent twice (fetch merges
 * duplicates) and Host can be set. The answer goes through the contract check like any other.
 */
function rawRequest(baseUrl: string, method: string, path: string, headers: string[]): Promise<RawResult> {
  const { hostname, port, host } = new URL(baseUrl);
  // With a raw list Node adds no Host header of its own (HTTP/1.1 requires one).
  const list = headers.some((_, i) => i % 2 === 0 && headers[i]?.toLowerCase() === 'host') ? headers : ['host', host, ...headers];
  return new Promise((resolve, reject) => {
    const request = http.request({ host: hostname, port: Number(port), path, method, headers: list }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const contentType = response.headers['content-type'];
        resolve({
          status: response.statusCode ?? 0,
          headers: {
            get: (name: string) => {
              const value = response.headers[name.toLowerCase()];
              return value === undefined ? null : Array.isArray(value) ? value.join(', ') : String(value);
            },
          },
          body: text && contentType?.includes('json') ? JSON.parse(text) : text || null,
        });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

function checkRaw(contract: ContractChecker, method: string, path: string, res: RawResult): void {
  contract.check(method, path, res.status, res.headers.get('content-type'), res.body);
}

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

for (const backend of backends) {
  describe(`DPoP (RFC 9449) over HTTP [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let contract: ContractChecker;
    before(async () => {
      t = await startTestApp(backend);
      contract = createContractChecker(await (await fetch(`${t.baseUrl}/api/v1/openapi.json`)).json());
    });
    after(() => t.close());

    const nowSeconds = () => t.clock.now() / 1000;

    /** A device key whose private half the test holds, for hand-made proofs. */
    async function ownKey(alg: Alg = 'ES256'): Promise<DpopKey & { alg: Alg; privateKey: KeyObject }> {
      return { alg, ...(await createDpopKey(alg, t.clock.now)) };
    }

    /** A device signed up with a key the test holds. */
    async function ownDevice(alg: Alg = 'ES256') {
      const key = await ownKey(alg);
      const device = await t.client.signUp(uniqueName('dpop'), undefined, key);
      return { device, key };
    }

    /** Claims of a genuine proof for GET /me with the device's token, overridable. */
    function meClaims(device: Device, extra: Record<string, unknown> = {}): Record<string, unknown> {
      return {
        htm: 'GET',
        htu: ME_URL,
        iat: Math.floor(nowSeconds()),
        jti: randomUUID(),
        ath: sha256Base64url(device.tokens.access_token),
        ...extra,
      };
    }

    /** GET /me with the device's token and exactly this DPoP header. */
    function meWithProof(device: Device, proof: string, scheme: 'DPoP' | 'Bearer' = 'DPoP'): Promise<CallResult> {
      return t.client.call('GET', ME, { token: device.tokens.access_token, scheme, headers: { dpop: proof } });
    }

    describe('schemes and missing credentials', () => {
      it('GET /me works with the DPoP scheme, with Bearer (decision 001), and with the scheme in any case', async () => {
        const device = await t.client.signUp(uniqueName('schemes'));
        const viaDpop = await t.client.as(device, 'GET', ME);
        assert.equal(viaDpop.status, 200);
        assert.equal(viaDpop.body.id, device.accountId);
        const viaBearer = await t.client.as(device, 'GET', ME, { scheme: 'Bearer' });
        assert.equal(viaBearer.status, 200);
        assert.equal(viaBearer.body.id, device.accountId);
        const lower = await t.client.as(device, 'GET', ME, { headers: { authorization: `dpop ${device.tokens.access_token}` } });
        assert.equal(lower.status, 200);
      });

      it('no Authorization: 401 unauthenticated, the challenge without an error', async () => {
        const res = await t.client.call('GET', ME);
        assertRefused(res, 401, 'unauthenticated');
        // A proof alone is no credential either.
        const key = await t.client.newKey();
        assertRefused(await t.client.call('GET', ME, { key }), 401, 'unauthenticated');
      });

      it('an unsupported scheme (Basic) counts as no credentials: 401 unauthenticated without an error', async () => {
        const res = await t.client.call('GET', ME, { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
        assertRefused(res, 401, 'unauthenticated');
      });

      it('a malformed Authorization header: 400 invalid_request', async () => {
        const device = await t.client.signUp(uniqueName('malformed'));
        const res = await t.client.as(device, 'GET', ME, { headers: { authorization: `DPoP ${device.tokens.access_token} extra` } });
        assertRefused(res, 400, 'invalid_request', 'invalid_request');
      });

      it('a token without a DPoP header: 401 invalid_dpop_proof, with DPoP and with Bearer', async () => {
        const device = await t.client.signUp(uniqueName('noproof'));
        assertRefused(await t.client.call('GET', ME, { token: device.tokens.access_token }), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        assertRefused(
          await t.client.call('GET', ME, { token: device.tokens.access_token, scheme: 'Bearer' }),
          401,
          'invalid_dpop_proof',
          'invalid_dpop_proof',
        );
        assertRefused(await meWithProof(device, ''), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
      });

      it('two Authorization headers (DPoP and Bearer) in one request: 400 invalid_request', async () => {
        const device = await t.client.signUp(uniqueName('twoauth'));
        const token = device.tokens.access_token;
        const proof = await device.key.proof('GET', ME_URL, { accessToken: token });
        const res = await rawRequest(t.baseUrl, 'GET', ME, ['authorization', `DPoP ${token}`, 'authorization', `Bearer ${token}`, 'dpop', proof]);
        checkRaw(contract, 'GET', ME, res);
        assertRefused(res, 400, 'invalid_request', 'invalid_request');
        // The same request with one of them is fine: only the duplicate was refused.
        const single = await rawRequest(t.baseUrl, 'GET', ME, ['authorization', `DPoP ${token}`, 'dpop', await device.key.proof('GET', ME_URL, { accessToken: token })]);
        checkRaw(contract, 'GET', ME, single);
        assert.equal(single.status, 200);
      });

      it('two DPoP headers in one request: 401 invalid_dpop_proof', async () => {
        const device = await t.client.signUp(uniqueName('twoproofs'));
        const token = device.tokens.access_token;
        const first = await device.key.proof('GET', ME_URL, { accessToken: token });
        const second = await device.key.proof('GET', ME_URL, { accessToken: token });
        const res = await rawRequest(t.baseUrl, 'GET', ME, ['authorization', `DPoP ${token}`, 'dpop', first, 'dpop', second]);
        checkRaw(contract, 'GET', ME, res);
        assertRefused(res, 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
      });
    });

    describe('key binding', () => {
      it('a stolen access token with a valid proof by another key (ath correct): 401 invalid_token', async () => {
        const device = await t.client.signUp(uniqueName('victim'));
        const attacker = await t.client.newKey();
        const stolen = await t.client.call('GET', ME, { key: attacker, token: device.tokens.access_token });
        assertRefused(stolen, 401, 'invalid_token', 'invalid_token');
        const stolenBearer = await t.client.call('GET', ME, { key: attacker, token: device.tokens.access_token, scheme: 'Bearer' });
        assertRefused(stolenBearer, 401, 'invalid_token', 'invalid_token');
        // The owner is not affected.
        assert.equal((await t.client.as(device, 'GET', ME)).status, 200);
      });

      it('a proof claiming the victim\'s public key but signed by another key: 401 invalid_dpop_proof', async () => {
        const { device, key } = await ownDevice();
        const attacker = await ownKey();
        const forged = await new SignJWT(meClaims(device)).setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.jwk }).sign(attacker.privateKey);
        assertRefused(await meWithProof(device, forged), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        assert.equal((await t.client.as(device, 'GET', ME)).status, 200);
      });

      for (const alg of ['ES384', 'EdDSA'] as const) {
        it(`a ${alg} device key works end to end: sign-up, /me, renew, login`, async () => {
          const key = await t.client.newKey(alg);
          const device = await t.client.signUp(uniqueName(alg.toLowerCase()), undefined, key);
          const me = await t.client.as(device, 'GET', ME);
          assert.equal(me.status, 200);
          assert.equal(me.body.id, device.accountId);
          const renewed = await t.client.call('POST', RENEW, { body: { refresh_token: device.tokens.refresh_token }, key });
          assert.equal(renewed.status, 200, JSON.stringify(renewed.body));
          const again = await t.client.call('GET', ME, { key, token: renewed.body.access_token });
          assert.equal(again.status, 200);
          const login = await t.client.logIn(device.authenticator, await t.client.newKey(alg));
          assert.equal(login.status, 200, JSON.stringify(login.body));
          assert.equal((await t.client.call('GET', ME, { key: login.key, token: login.body.access_token })).status, 200);
          // And the other key's token is not usable with this key.
          assertRefused(await t.client.call('GET', ME, { key, token: login.body.access_token }), 401, 'invalid_token', 'invalid_token');
        });
      }
    });

    describe('replay (§11.1)', () => {
      it('the exact same proof sent twice: the second is 401 invalid_dpop_proof', async () => {
        const device = await t.client.signUp(uniqueName('replay'));
        const proof = await device.key.proof('GET', ME_URL, { accessToken: device.tokens.access_token });
        assert.equal((await meWithProof(device, proof)).status, 200);
        assertRefused(await meWithProof(device, proof), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        // Still refused later in the window, and with the other scheme.
        t.clock.advance(30_000);
        assertRefused(await meWithProof(device, proof, 'Bearer'), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        // A fresh proof works.
        assert.equal((await t.client.as(device, 'GET', ME)).status, 200);
      });

      it('the same proof sent ten times at once: exactly one is accepted', async () => {
        const device = await t.client.signUp(uniqueName('race'));
        const proof = await device.key.proof('GET', ME_URL, { accessToken: device.tokens.access_token });
        const responses = await Promise.all(Array.from({ length: 10 }, () => meWithProof(device, proof)));
        assert.deepEqual(responses.map((r) => r.status).sort(), [200, ...Array(9).fill(401)]);
        for (const res of responses.filter((r) => r.status === 401)) assertRefused(res, 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
      });

      it('a new proof that reuses a jti: 401 invalid_dpop_proof', async () => {
        const device = await t.client.signUp(uniqueName('jti'));
        const jti = randomUUID();
        assert.equal((await t.client.as(device, 'GET', ME, { proofOptions: { jti } })).status, 200);
        assertRefused(await t.client.as(device, 'GET', ME, { proofOptions: { jti } }), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
      });

      it('a proof accepted by one node is refused by another node of the same deployment', async () => {
        const device = await t.client.signUp(uniqueName('nodes'));
        const { app: nodeB } = await buildApp({ config: t.config, store: t.store, clock: t.clock, logger: false });
        try {
          await nodeB.listen({ host: '127.0.0.1', port: 0 });
          const baseB = `http://127.0.0.1:${(nodeB.server.address() as AddressInfo).port}`;
          const token = device.tokens.access_token;
          const proof = await device.key.proof('GET', ME_URL, { accessToken: token });
          assert.equal((await meWithProof(device, proof)).status, 200);
          const replayed = await rawRequest(baseB, 'GET', ME, ['authorization', `DPoP ${token}`, 'dpop', proof]);
          checkRaw(contract, 'GET', ME, replayed);
          assertRefused(replayed, 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        } finally {
          await nodeB.close();
        }
      });
    });

    describe('htu and htm (§4.3 steps 8-9)', () => {
      it('a proof for another URL or another method: 401 invalid_dpop_proof', async () => {
        const device = await t.client.signUp(uniqueName('htu'));
        for (const htu of [
          `${PUBLIC_ORIGIN}/api/v1/auth/sessions`,
          `${PUBLIC_ORIGIN}/api/v1/me/`,
          'https://localhost:8080/api/v1/me',
          'http://localhost:8081/api/v1/me',
          'http://evil.example/api/v1/me',
        ]) {
          assertRefused(await t.client.as(device, 'GET', ME, { proofOptions: { htu } }), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        }
        for (const htm of ['POST', 'PATCH', 'get']) {
          assertRefused(await t.client.as(device, 'GET', ME, { proofOptions: { htm } }), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        }
        // A genuine proof made for another request.
        const forSessions = await device.key.proof('GET', `${PUBLIC_ORIGIN}/api/v1/auth/sessions`, { accessToken: device.tokens.access_token });
        assertRefused(await meWithProof(device, forSessions), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        const forLogout = await device.key.proof('POST', `${PUBLIC_ORIGIN}${LOGOUT}`, { accessToken: device.tokens.access_token });
        assertRefused(await meWithProof(device, forLogout), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
      });

      it('htu is checked against the public origin, not the address the server listens on nor the Host header', async () => {
        const device = await t.client.signUp(uniqueName('host'));
        const token = device.tokens.access_token;
        const listening = `${t.baseUrl}${ME}`;
        assertRefused(await t.client.as(device, 'GET', ME, { proofOptions: { htu: listening } }), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        const spoofed = await device.key.proof('GET', `http://evil.example${ME}`, { accessToken: token });
        const res = await rawRequest(t.baseUrl, 'GET', ME, ['host', 'evil.example', 'authorization', `DPoP ${token}`, 'dpop', spoofed]);
        checkRaw(contract, 'GET', ME, res);
        assertRefused(res, 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
      });

      it('htu with a query or a fragment but the same path is accepted (compared without them)', async () => {
        const device = await t.client.signUp(uniqueName('query'));
        for (const htu of [`${ME_URL}?a=1`, `${ME_URL}#section`, `${ME_URL}?a=1&b=2#f`]) {
          const res = await t.client.as(device, 'GET', ME, { proofOptions: { htu } });
          assert.equal(res.status, 200, `${htu}: ${JSON.stringify(res.body)}`);
        }
        // A request with a query string, the proof's htu with or without it.
        const withoutQuery = await t.client.as(device, 'GET', '/api/v1/auth/sessions?limit=5');
        assert.equal(withoutQuery.status, 200, JSON.stringify(withoutQuery.body));
        const withQuery = await t.client.as(device, 'GET', '/api/v1/auth/sessions?limit=5', {
          proofOptions: { htu: `${PUBLIC_ORIGIN}/api/v1/auth/sessions?limit=5` },
        });
        assert.equal(withQuery.status, 200, JSON.stringify(withQuery.body));
      });
    });

    describe('iat window (60 s + 5 s skew)', () => {
      it('a proof used after the window has passed: 401; just inside the window: 200', async () => {
        const device = await t.client.signUp(uniqueName('iatold'));
        const token = device.tokens.access_token;
        const late = await device.key.proof('GET', ME_URL, { accessToken: token });
        const inTime = await device.key.proof('GET', ME_URL, { accessToken: token });
        t.clock.advance((WINDOW_S - 1) * 1000);
        assert.equal((await meWithProof(device, inTime)).status, 200);
        t.clock.advance((SKEW_S + 2) * 1000);
        assertRefused(await meWithProof(device, late), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
      });

      it('iat too old or too far in the future: 401; at the edges of the window: 200', async () => {
        const device = await t.client.signUp(uniqueName('iat'));
        const oldest = Math.ceil(nowSeconds()) - WINDOW_S - SKEW_S;
        assert.equal((await t.client.as(device, 'GET', ME, { proofOptions: { iat: oldest } })).status, 200);
        const newest = Math.floor(nowSeconds()) + SKEW_S;
        assert.equal((await t.client.as(device, 'GET', ME, { proofOptions: { iat: newest } })).status, 200);
        const tooOld = Math.floor(nowSeconds()) - WINDOW_S - SKEW_S - 1;
        assertRefused(await t.client.as(device, 'GET', ME, { proofOptions: { iat: tooOld } }), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        const future = Math.ceil(nowSeconds()) + SKEW_S + 1;
        assertRefused(await t.client.as(device, 'GET', ME, { proofOptions: { iat: future } }), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        const farFuture = Math.floor(nowSeconds()) + 3600;
        assertRefused(await t.client.as(device, 'GET', ME, { proofOptions: { iat: farFuture } }), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        for (const iat of [String(Math.floor(nowSeconds())), null]) {
          assertRefused(await t.client.as(device, 'GET', ME, { proofOptions: { claims: { iat } } }), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        }
      });
    });

    describe('ath (§4.3 step 10)', () => {
      it('a proof without ath, or with the hash of another token: 401 invalid_dpop_proof', async () => {
        const device = await t.client.signUp(uniqueName('ath'));
        const other = await t.client.signUp(uniqueName('ath2'));
        // proofOptions.accessToken undefined: the helper leaves ath out.
        assertRefused(await t.client.as(device, 'GET', ME, { proofOptions: { accessToken: undefined } }), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        assertRefused(
          await t.client.as(device, 'GET', ME, { proofOptions: { accessToken: other.tokens.access_token } }),
          401,
          'invalid_dpop_proof',
          'invalid_dpop_proof',
        );
        assertRefused(
          await t.client.as(device, 'GET', ME, { proofOptions: { claims: { ath: device.tokens.access_token } } }),
          401,
          'invalid_dpop_proof',
          'invalid_dpop_proof',
        );
        // A proof for the refresh token's hash does not authenticate with the access token.
        assertRefused(
          await t.client.as(device, 'GET', ME, { proofOptions: { accessToken: device.tokens.refresh_token } }),
          401,
          'invalid_dpop_proof',
          'invalid_dpop_proof',
        );
      });
    });

    describe('malformed proofs: 401 invalid_dpop_proof', () => {
      it('typ other than dpop+jwt', async () => {
        const device = await t.client.signUp(uniqueName('typ'));
        for (const typ of ['JWT', 'at+jwt', 'dpop']) {
          assertRefused(await t.client.as(device, 'GET', ME, { proofOptions: { typ } }), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        }
      });

      it('alg none (unsigned)', async () => {
        const { device, key } = await ownDevice();
        const unsigned = `${b64({ typ: 'dpop+jwt', alg: 'none', jwk: key.jwk })}.${b64(meClaims(device))}.`;
        assertRefused(await meWithProof(device, unsigned), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
      });

      it('alg HS256 (a MAC, not a signature)', async () => {
        const { device, key } = await ownDevice();
        const mac = await new SignJWT(meClaims(device))
          .setProtectedHeader({ typ: 'dpop+jwt', alg: 'HS256', jwk: key.jwk })
          .sign(new TextEncoder().encode(JSON.stringify(key.jwk)));
        assertRefused(await meWithProof(device, mac), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
      });

      it('a jwk that contains the private key (d)', async () => {
        const { device, key } = await ownDevice();
        const privateJwk: JWK = await exportJWK(key.privateKey);
        assert.ok(privateJwk.d);
        // Same thumbprint as the bound key: only the private-member check refuses it.
        assert.equal(await calculateJwkThumbprint(privateJwk), device.key.jkt);
        const leaky = await new SignJWT(meClaims(device)).setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: privateJwk }).sign(key.privateKey);
        assertRefused(await meWithProof(device, leaky), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
      });

      it('a jwk whose curve does not match alg', async () => {
        const { device, key } = await ownDevice();
        const p384 = await ownKey('ES384');
        const mismatched = await new SignJWT(meClaims(device)).setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES384', jwk: key.jwk }).sign(p384.privateKey);
        assertRefused(await meWithProof(device, mismatched), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        const ed = await ownKey('EdDSA');
        const okpForEs = await new SignJWT(meClaims(device)).setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: ed.jwk }).sign(key.privateKey);
        assertRefused(await meWithProof(device, okpForEs), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
      });

      it('a signature that does not verify (tampered payload, flipped bit)', async () => {
        const { device, key } = await ownDevice();
        const genuine = await key.proof('GET', ME_URL, { accessToken: device.tokens.access_token });
        const [h, , s] = genuine.split('.') as [string, string, string];
        // The cached header with another payload: the signature is still checked.
        assert.equal((await meWithProof(device, await key.proof('GET', ME_URL, { accessToken: device.tokens.access_token }))).status, 200);
        assertRefused(await meWithProof(device, `${h}.${b64(meClaims(device))}.${s}`), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        const [h2, p2, s2] = (await key.proof('GET', ME_URL, { accessToken: device.tokens.access_token })).split('.') as [string, string, string];
        const flipped = Buffer.from(s2, 'base64url');
        flipped[10] = (flipped[10] as number) ^ 0x80;
        assertRefused(await meWithProof(device, `${h2}.${p2}.${flipped.toString('base64url')}`), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
      });

      it('garbage that is not a JWS', async () => {
        const device = await t.client.signUp(uniqueName('garbage'));
        for (const garbage of ['garbage', 'a.b', 'a.b.c.d', '...', `${b64('{')}.${b64('{}')}.${b64('s')}`, 'x'.repeat(5000)]) {
          assertRefused(await meWithProof(device, garbage), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        }
      });

      it('two proofs in one DPoP header (comma-joined)', async () => {
        const device = await t.client.signUp(uniqueName('comma'));
        const token = device.tokens.access_token;
        const first = await device.key.proof('GET', ME_URL, { accessToken: token });
        const second = await device.key.proof('GET', ME_URL, { accessToken: token });
        assertRefused(await meWithProof(device, `${first}, ${second}`), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        assertRefused(await meWithProof(device, `${first},${second}`), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
      });
    });

    describe('token lifetime, revocation and renewal', () => {
      it('an access token past its 600 s lifetime: 401 invalid_token; renewing gives a working one', async () => {
        const device = await t.client.signUp(uniqueName('expiry'));
        assert.equal(device.tokens.expires_in, ACCESS_TTL_MS / 1000);
        t.clock.advance(ACCESS_TTL_MS - 1000);
        assert.equal((await t.client.as(device, 'GET', ME)).status, 200);
        t.clock.advance(1001);
        assertRefused(await t.client.as(device, 'GET', ME), 401, 'invalid_token', 'invalid_token');
        const renewed = await t.client.call('POST', RENEW, { body: { refresh_token: device.tokens.refresh_token }, key: device.key });
        assert.equal(renewed.status, 200, JSON.stringify(renewed.body));
        assert.equal((await t.client.call('GET', ME, { key: device.key, token: renewed.body.access_token })).status, 200);
      });

      it('a logged-out session\'s tokens: 401 invalid_token; the account\'s other sessions keep working', async () => {
        const device = await t.client.signUp(uniqueName('logout'));
        const login = await t.client.logIn(device.authenticator);
        assert.equal(login.status, 200);
        const logout = await t.client.as(device, 'POST', LOGOUT);
        assert.equal(logout.status, 204);
        assertRefused(await t.client.as(device, 'GET', ME), 401, 'invalid_token', 'invalid_token');
        assertRefused(await t.client.as(device, 'POST', LOGOUT), 401, 'invalid_token', 'invalid_token');
        const renew = await t.client.call('POST', RENEW, { body: { refresh_token: device.tokens.refresh_token }, key: device.key });
        assertRefused(renew, 401, 'invalid_token', 'invalid_token');
        assert.equal((await t.client.call('GET', ME, { key: login.key, token: login.body.access_token })).status, 200);
      });

      it('renew needs a proof: none, or one for another URL, is 401 invalid_dpop_proof and leaves the refresh token usable', async () => {
        const device = await t.client.signUp(uniqueName('renewproof'));
        const body = { refresh_token: device.tokens.refresh_token };
        assertRefused(await t.client.call('POST', RENEW, { body }), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        assertRefused(await t.client.call('POST', RENEW, { body, key: device.key, proofOptions: { htu: ME_URL } }), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        assertRefused(await t.client.call('POST', RENEW, { body, key: device.key, proofOptions: { htm: 'GET' } }), 401, 'invalid_dpop_proof', 'invalid_dpop_proof');
        const renewed = await t.client.call('POST', RENEW, { body, key: device.key });
        assert.equal(renewed.status, 200, JSON.stringify(renewed.body));
      });

      it('renew with a proof by another key: 401 invalid_token, and the original device can still renew', async () => {
        const device = await t.client.signUp(uniqueName('renewthief'));
        const thief = await t.client.newKey();
        const body = { refresh_token: device.tokens.refresh_token };
        const stolen = await t.client.call('POST', RENEW, { body, key: thief });
        assertRefused(stolen, 401, 'invalid_token', 'invalid_token');
        // The thief's attempt must not burn the owner's refresh token nor end the session.
        const renewed = await t.client.call('POST', RENEW, { body, key: device.key });
        assert.equal(renewed.status, 200, `the owner's renew after a refused foreign-key renew: ${JSON.stringify(renewed.body)}`);
        // The session is still live: the renewed access token works (renewal rotated the old one away).
        assert.equal((await t.client.call('GET', ME, { key: device.key, token: renewed.body.access_token })).status, 200);
      });

      it('a renewed refresh token reused: 401 refresh_token_reused, the session ends, and the 401 carries a challenge', async () => {
        const device = await t.client.signUp(uniqueName('reuse'));
        const body = { refresh_token: device.tokens.refresh_token };
        const renewed = await t.client.call('POST', RENEW, { body, key: device.key });
        assert.equal(renewed.status, 200);
        const reused = await t.client.call('POST', RENEW, { body, key: device.key });
        assert.equal(reused.status, 401);
        assert.equal(reused.body.code, 'refresh_token_reused');
        assertRefused(await t.client.call('GET', ME, { key: device.key, token: renewed.body.access_token }), 401, 'invalid_token', 'invalid_token');
        // RFC 9110 §15.5.2: a 401 MUST carry WWW-Authenticate.
        const www = reused.headers.get('www-authenticate');
        assert.ok(www?.startsWith(CHALLENGE), `401 refresh_token_reused without the DPoP challenge: WWW-Authenticate was ${www}`);
      });
    });
  });
}
