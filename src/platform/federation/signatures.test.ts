import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import type { JsonWebKey } from 'node:crypto';
import { describe, it } from 'node:test';
import type { RegionPeer } from '../config.js';
import { noMetrics } from '../metrics/metrics.js';
import type { Metrics } from '../metrics/metrics.js';
import { contentDigest } from './digest.js';
import { newRegionKey } from './keys.js';
import { createMemoryNonceStore } from './nonces.js';
import type { NonceStore } from './nonces.js';
import { signRequest, verifyRequest } from './signatures.js';
import type { IncomingRegionRequest, OutgoingRegionRequest, RegionSigningKey, RegionVerification } from './signatures.js';
import { createRegionRequestVerifier } from './verifier.js';

// Pure unit tests of the RFC 9421 profile between regions: no server, no database, an injected clock.

/** A whole second, so created and expires are exact. */
const NOW = 1_780_000_000_000;
const MAX_AGE = 60;
const EU_ORIGIN = 'https://eu.vid.example';
const BODY = JSON.stringify({ username: 'alice', region: 'us' });

function regionKey(kid: string) {
  const { privateJwk, publicJwk } = newRegionKey(kid);
  return {
    signing: { kid, privateKey: createPrivateKey({ key: privateJwk as JsonWebKey, format: 'jwk' }) } as RegionSigningKey,
    publicKey: createPublicKey({ key: publicJwk as JsonWebKey, format: 'jwk' }),
  };
}

// This is the EU region receiving; US and AP are its peers. US rotates: two keys listed.
const us1 = regionKey('us-2026-05');
const us2 = regionKey('us-2026-11');
const ap = regionKey('ap-2026-11');
const eu = regionKey('eu-2026-11');
const peers: RegionPeer[] = [
  { id: 'us', url: 'https://us.vid.example', keys: new Map([[us1.signing.kid, us1.publicKey], [us2.signing.kid, us2.publicKey]]) },
  { id: 'ap', url: 'https://ap.vid.example', keys: new Map([[ap.signing.kid, ap.publicKey]]) },
];

const outgoing = (over: Partial<OutgoingRegionRequest> = {}): OutgoingRegionRequest => ({
  method: 'POST',
  url: `${EU_ORIGIN}/federation/v1/usernames/claim`,
  headers: { 'content-type': 'application/json' },
  body: BODY,
  ...over,
});

/** What the receiver sees of a request sent as `request` with `headers`, changed by `over`. */
const incoming = (request: OutgoingRegionRequest, headers: Record<string, string>, over: Partial<IncomingRegionRequest> = {}): IncomingRegionRequest => ({
  method: request.method,
  url: request.url,
  headers,
  body: Buffer.from(request.body),
  ...over,
});

const verify = (request: IncomingRegionRequest, opts: { now?: number; nonces?: NonceStore; maxAgeSeconds?: number } = {}) =>
  verifyRequest(request, { peers, now: opts.now ?? NOW, maxAgeSeconds: opts.maxAgeSeconds ?? MAX_AGE, nonces: opts.nonces ?? createMemoryNonceStore(() => opts.now ?? NOW) });

async function signed(over: Partial<OutgoingRegionRequest> = {}, key: RegionSigningKey = us2.signing, opts: { now?: number; nonce?: string; validity?: number } = {}) {
  const request = outgoing(over);
  const headers = await signRequest(request, key, opts.now ?? NOW, opts.nonce, opts.validity ?? MAX_AGE);
  return { request, headers };
}

function refused(result: RegionVerification, reason: string, region?: string): void {
  assert.equal(result.ok, false, 'expected a refusal');
  if (result.ok) return;
  assert.equal(result.reason, reason);
  if (region !== undefined) assert.equal(result.region, region);
}

/** Rewrites one parameter of Signature-Input (`;name=value` → `;name=replacement`, or drops it). */
const withParam = (headers: Record<string, string>, name: string, replacement: string | null) => ({
  ...headers,
  'signature-input': headers['signature-input']!.replace(new RegExp(`;${name}=("[^"]*"|[^;]*)`), replacement === null ? '' : `;${name}=${replacement}`),
});

describe('region request signatures (RFC 9421, RFC 9530)', () => {
  it('signs the profile: digest, covered components and parameters', async () => {
    const { headers } = await signed({}, us2.signing, { nonce: 'AAAAAAAAAAAAAAAAAAAAAA' });
    assert.equal(headers['content-type'], 'application/json');
    assert.equal(headers['content-digest'], contentDigest(BODY));
    assert.match(headers['content-digest']!, /^sha-256=:[A-Za-z0-9+/]{43}=:$/);
    const created = NOW / 1000;
    assert.equal(
      headers['signature-input'],
      `vid=("@method" "@target-uri" "content-digest" "content-type");created=${created};expires=${created + MAX_AGE};keyid="us-2026-11";alg="ed25519";nonce="AAAAAAAAAAAAAAAAAAAAAA";tag="vid-region"`,
    );
    assert.match(headers['signature']!, /^vid=:[A-Za-z0-9+/]{86}==:$/);
  });

  it('a round trip passes and names the sender and its key', async () => {
    const { request, headers } = await signed();
    assert.deepEqual(await verify(incoming(request, headers)), { ok: true, region: 'us', kid: 'us-2026-11' });
  });

  it('takes the headers as Node gives them: any case, arrays, absent values', async () => {
    const { request, headers } = await signed();
    const mixed: Record<string, string | string[] | undefined> = { 'X-Absent': undefined, Accept: ['application/json'] };
    for (const [name, value] of Object.entries(headers)) mixed[name.replace(/^./, (c) => c.toUpperCase())] = value;
    assert.equal((await verify(incoming(request, {}, { headers: mixed, body: request.body }))).ok, true);
  });

  it('each fresh signature carries a nonce of its own (128 bits, base64url)', async () => {
    const a = (await signed()).headers['signature-input']!.match(/nonce="([^"]+)"/)![1]!;
    const b = (await signed()).headers['signature-input']!.match(/nonce="([^"]+)"/)![1]!;
    assert.match(a, /^[A-Za-z0-9_-]{22}$/);
    assert.notEqual(a, b);
  });

  it('rotation: a peer listing two keys accepts either', async () => {
    for (const key of [us1.signing, us2.signing]) {
      const { request, headers } = await signed({}, key);
      assert.deepEqual(await verify(incoming(request, headers)), { ok: true, region: 'us', kid: key.kid });
    }
  });

  it('unsigned: neither Signature nor Signature-Input', async () => {
    const { request } = await signed();
    refused(await verify(incoming(request, { 'content-type': 'application/json', 'content-digest': contentDigest(BODY) })), 'unsigned');
  });

  it('malformed: one of the two signature fields, a missing covered header, an unparsable field', async () => {
    const { request, headers } = await signed();
    const without = (name: string) => Object.fromEntries(Object.entries(headers).filter(([key]) => key !== name));
    refused(await verify(incoming(request, without('signature'))), 'malformed');
    refused(await verify(incoming(request, without('signature-input'))), 'malformed');
    refused(await verify(incoming(request, without('content-digest'))), 'malformed');
    refused(await verify(incoming(request, without('content-type'))), 'malformed');
    refused(await verify(incoming(request, { ...headers, 'signature-input': 'vid=(' })), 'malformed');
    refused(await verify(incoming(request, { ...headers, signature: 'vid="not bytes"' })), 'malformed');
    refused(await verify(incoming(request, { ...headers, 'content-digest': 'sha-512=:AAAA:' })), 'malformed');
  });

  it('malformed: covering fewer components than the profile, or others', async () => {
    const { request, headers } = await signed();
    const covering = (list: string) => ({ ...headers, 'signature-input': headers['signature-input']!.replace(/^vid=\([^)]*\)/, `vid=(${list})`) });
    refused(await verify(incoming(request, covering('"@method" "@target-uri" "content-digest"'))), 'malformed');
    refused(await verify(incoming(request, covering('"@method" "@target-uri" "content-type"'))), 'malformed');
    refused(await verify(incoming(request, covering('"@method" "@authority" "content-digest" "content-type"'))), 'malformed');
    refused(await verify(incoming(request, covering('"@method" "@target-uri" "content-digest" "content-type" "date"'))), 'malformed');
    refused(await verify(incoming(request, covering('"@method" "@target-uri" "content-digest";sf "content-type"'))), 'malformed');
  });

  it('malformed: a missing nonce, an unexpected parameter or another algorithm', async () => {
    const { request, headers } = await signed();
    refused(await verify(incoming(request, withParam(headers, 'nonce', null))), 'malformed');
    refused(await verify(incoming(request, withParam(headers, 'nonce', '"short"'))), 'malformed');
    refused(await verify(incoming(request, withParam(headers, 'created', null))), 'malformed');
    refused(await verify(incoming(request, withParam(headers, 'alg', '"ecdsa-p256-sha256"'))), 'malformed');
    refused(await verify(incoming(request, { ...headers, 'signature-input': `${headers['signature-input']};extra=1` })), 'malformed');
  });

  it('malformed: a signature with another tag (RFC 9421 §2.3), or none', async () => {
    const { request, headers } = await signed();
    refused(await verify(incoming(request, withParam(headers, 'tag', '"vid-webhook"'))), 'malformed');
    refused(await verify(incoming(request, withParam(headers, 'tag', null))), 'malformed');
  });

  it('ignores signatures of other applications beside ours (RFC 9421 §4.3)', async () => {
    const { request, headers } = await signed();
    const both = {
      ...headers,
      'signature-input': `proxy=("@method");created=1;tag="edge", ${headers['signature-input']}`,
      signature: `proxy=:AAAA:, ${headers['signature']}`,
    };
    assert.equal((await verify(incoming(request, both))).ok, true);
  });

  it('unknown_key: a kid no peer lists, ours included', async () => {
    const { request, headers } = await signed({}, eu.signing);
    refused(await verify(incoming(request, headers)), 'unknown_key');
    const other = await signed({}, { kid: 'us-2027-05', privateKey: us2.signing.privateKey });
    refused(await verify(incoming(other.request, other.headers)), 'unknown_key');
  });

  it("bad_signature: another region's key under a listed kid", async () => {
    const { request, headers } = await signed({}, { kid: 'us-2026-11', privateKey: ap.signing.privateKey });
    refused(await verify(incoming(request, headers)), 'bad_signature', 'us');
    const own = await signed({}, { kid: 'ap-2026-11', privateKey: eu.signing.privateKey });
    refused(await verify(incoming(own.request, own.headers)), 'bad_signature', 'ap');
  });

  it('bad_signature: a changed method, path, query, origin or content type', async () => {
    const { request, headers } = await signed();
    refused(await verify(incoming(request, headers, { method: 'PUT' })), 'bad_signature', 'us');
    refused(await verify(incoming(request, headers, { url: `${EU_ORIGIN}/federation/v1/usernames/release` })), 'bad_signature', 'us');
    refused(await verify(incoming(request, headers, { url: `${request.url}?force=1` })), 'bad_signature', 'us');
    refused(await verify(incoming(request, headers, { url: request.url.replace(EU_ORIGIN, 'https://us.vid.example') })), 'bad_signature', 'us');
    refused(await verify(incoming(request, { ...headers, 'content-type': 'text/plain' })), 'bad_signature', 'us');
  });

  it('bad_signature: a changed parameter (the signature covers @signature-params)', async () => {
    const { request, headers } = await signed();
    const created = NOW / 1000;
    refused(await verify(incoming(request, withParam(headers, 'expires', String(created + 30)))), 'bad_signature');
    refused(await verify(incoming(request, withParam(headers, 'nonce', '"BBBBBBBBBBBBBBBBBBBBBB"'))), 'bad_signature');
  });

  it('digest_mismatch: a changed body; bad_signature: a body and digest changed together', async () => {
    const { request, headers } = await signed();
    const other = JSON.stringify({ username: 'mallory', region: 'us' });
    refused(await verify(incoming(request, headers, { body: other })), 'digest_mismatch', 'us');
    refused(await verify(incoming(request, headers, { body: Buffer.from(`${BODY} `) })), 'digest_mismatch', 'us');
    refused(await verify(incoming(request, { ...headers, 'content-digest': contentDigest(other) }, { body: other })), 'bad_signature', 'us');
  });

  it('the digest is of the exact bytes: a string body and its UTF-8 Buffer agree', async () => {
    const { request, headers } = await signed({ body: JSON.stringify({ name: 'Zoë 日本' }) });
    assert.equal((await verify(incoming(request, headers, { body: request.body }))).ok, true);
    assert.equal((await verify(incoming(request, headers))).ok, true);
  });

  it('stale: expired, created in the future, or valid for longer than the maximum age', async () => {
    const { request, headers } = await signed();
    assert.equal((await verify(incoming(request, headers), { now: NOW + MAX_AGE * 1000 })).ok, true, 'valid up to expires');
    refused(await verify(incoming(request, headers), { now: NOW + MAX_AGE * 1000 + 1 }), 'stale', 'us');
    // A little clock skew is tolerated; more is not.
    assert.equal((await verify(incoming(request, headers), { now: NOW - 5000 })).ok, true);
    refused(await verify(incoming(request, headers), { now: NOW - 5001 }), 'stale', 'us');
    const long = await signed({}, us2.signing, { validity: MAX_AGE + 1 });
    refused(await verify(incoming(long.request, long.headers)), 'stale', 'us');
    const receiverStricter = await signed();
    refused(await verify(incoming(receiverStricter.request, receiverStricter.headers), { maxAgeSeconds: 30 }), 'stale', 'us');
  });

  it('replayed: the same signed request twice; the nonce is spent only by a valid signature', async () => {
    const nonces = createMemoryNonceStore(() => NOW);
    const { request, headers } = await signed();
    // A tampered copy fails before its nonce is recorded, so it cannot burn the genuine one.
    refused(await verify(incoming(request, headers, { method: 'DELETE' }), { nonces }), 'bad_signature');
    assert.equal(nonces.size(), 0);
    assert.equal((await verify(incoming(request, headers), { nonces })).ok, true);
    refused(await verify(incoming(request, headers), { nonces }), 'replayed', 'us');
  });

  it('nonces are per region', async () => {
    const nonces = createMemoryNonceStore(() => NOW);
    const nonce = 'CCCCCCCCCCCCCCCCCCCCCC';
    const fromUs = await signed({}, us2.signing, { nonce });
    const fromAp = await signed({}, ap.signing, { nonce });
    assert.equal((await verify(incoming(fromUs.request, fromUs.headers), { nonces })).ok, true);
    assert.equal((await verify(incoming(fromAp.request, fromAp.headers), { nonces })).ok, true);
  });

  it('the memory nonce store forgets a nonce once its signature has expired', async () => {
    let now = NOW;
    const nonces = createMemoryNonceStore(() => now);
    assert.equal(await nonces.firstUse('us', 'n', NOW + 1000), true);
    assert.equal(await nonces.firstUse('us', 'n', NOW + 1000), false);
    now = NOW + 1000;
    assert.equal(await nonces.firstUse('us', 'm', NOW + 2000), true);
    assert.equal(nonces.size(), 1);
  });

  it('the URL is compared in one spelling: a trailing slash on the origin signs alike', async () => {
    const { request, headers } = await signed({ url: EU_ORIGIN });
    assert.equal((await verify(incoming(request, headers, { url: `${EU_ORIGIN}/` }))).ok, true);
  });
});

describe('createRegionRequestVerifier: counts what it decides', () => {
  function counting() {
    const seen: string[] = [];
    const metrics: Metrics = {
      ...noMetrics,
      regionRequest: (region) => seen.push(`ok ${region}`),
      regionRequestRefused: (region, reason) => seen.push(`refused ${region} ${reason}`),
    };
    return { seen, metrics };
  }

  it('accepted by region, refused by region (unknown when no peer is named) and reason', async () => {
    const { seen, metrics } = counting();
    const check = createRegionRequestVerifier({ regions: { peers, maxAgeSeconds: MAX_AGE }, nonces: createMemoryNonceStore(() => NOW), metrics, now: () => NOW });
    const { request, headers } = await signed();
    await check(incoming(request, headers));
    await check(incoming(request, headers));
    await check(incoming(request, {}));
    const stranger = await signed({}, eu.signing);
    await check(incoming(stranger.request, stranger.headers));
    assert.deepEqual(seen, ['ok us', 'refused us replayed', 'refused unknown unsigned', 'refused unknown unknown_key']);
  });
});
