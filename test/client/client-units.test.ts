// The client's pure parts, checked independently: proofs verified with jose, the RFC 7638
// thumbprint, the SSE parser (WHATWG HTML §9.2.6), Retry-After, path filling, pagination.
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import openapiTS, { astToString } from 'openapi-typescript';
import { contactOfCard, createDpopKey, fillPath, paginate, publicJwk, SseParser, thumbprint } from '../../client/src/index.js';
import { signProof } from '../../client/src/dpop.js';
import { retryAfterMs } from '../../client/src/retry.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';
import { sha256Base64url } from '../../src/platform/crypto/tokens.js';

describe('client: generated types', () => {
  it('match the OpenAPI document the routes describe (else: npm run client:generate)', async () => {
    // The same configuration as scripts/write-openapi.ts, which `client:generate` runs.
    const { app } = await buildApp({ config: loadConfig({ SQLITE_PATH: ':memory:', SECRET_KEY: 'A'.repeat(43) }), logger: false });
    try {
      // As client:generate runs it: a default makes a request member optional, not required (named request bodies).
      const expected = astToString(await openapiTS(JSON.parse(JSON.stringify(app.swagger())), { defaultNonNullable: false }));
      const committed = readFileSync(new URL('../../client/src/generated/openapi.ts', import.meta.url), 'utf8');
      assert.ok(committed.endsWith(expected), 'client/src/generated/openapi.ts is stale: run npm run client:generate');
    } finally {
      await app.close();
    }
  });
});

describe('client: DPoP proofs', () => {
  it('signs ES256 proofs that an independent JOSE library verifies with the embedded key', async () => {
    const key = await createDpopKey();
    const jwk = await publicJwk(key);
    const now = Date.UTC(2030, 0, 1);
    const proof = await signProof(key, jwk, { method: 'get', url: 'https://id.example.com/api/v1/me?x=1#f', accessToken: 'vid_at_x', now });
    const header = decodeProtectedHeader(proof);
    assert.equal(header.typ, 'dpop+jwt');
    const { payload } = await jwtVerify(proof, await importJWK(header.jwk!, 'ES256'), { typ: 'dpop+jwt', currentDate: new Date(now) });
    assert.equal(payload.htm, 'GET');
    assert.equal(payload.htu, 'https://id.example.com/api/v1/me', 'no query, no fragment');
    assert.equal(payload.iat, now / 1000);
    assert.equal(payload.ath, sha256Base64url('vid_at_x'));
    assert.equal(typeof payload.jti, 'string');
    assert.equal(key.privateKey.extractable, false);
    await assert.rejects(globalThis.crypto.subtle.exportKey('jwk', key.privateKey));
  });

  it('computes the RFC 7638 thumbprint as jose does', async () => {
    const jwk = await publicJwk(await createDpopKey());
    assert.equal(await thumbprint(jwk), await calculateJwkThumbprint(jwk));
  });

  it('reads the public JWK from the raw point: the same key as its SPKI export', async () => {
    const key = await createDpopKey();
    const spki = Buffer.from(await globalThis.crypto.subtle.exportKey('spki', key.publicKey));
    const { kty, crv, x, y } = createPublicKey({ key: spki, format: 'der', type: 'spki' }).export({ format: 'jwk' });
    assert.deepEqual(await publicJwk(key), { kty, crv, x, y });
  });
});

describe('client: signal resources', () => {
  it('names the contact of a card resource, and nothing for any other resource', () => {
    assert.equal(contactOfCard('/contacts/sub_3kQ9/card'), 'sub_3kQ9');
    for (const resource of ['/contacts/sub_3kQ9/annotation', '/contacts/sub_3kQ9', '/contacts//card', '/profiles/prf_1/card', '/contacts/a/b/card']) {
      assert.equal(contactOfCard(resource), undefined, resource);
    }
  });
});

describe('client: SSE parser', () => {
  it('parses events, ids, retry and comments across arbitrary chunk boundaries and line ends', () => {
    const text = '\uFEFFretry: 2000\r\nid: c0\r\n\r\n: heartbeat\n\nid: c1\nevent: me.changed\ndata: {"a":\ndata: 1}\n\rdata: plain\r\r';
    for (const size of [1, 2, 3, 7, text.length]) {
      const parser = new SseParser();
      const out = [];
      for (let i = 0; i < text.length; i += size) out.push(...parser.push(text.slice(i, i + size)));
      assert.deepEqual(out, [
        { kind: 'retry', ms: 2000 },
        { kind: 'id', id: 'c0' },
        { kind: 'comment', text: 'heartbeat' },
        { kind: 'event', id: 'c1', event: 'me.changed', data: '{"a":\n1}' },
        { kind: 'event', id: 'c1', event: 'message', data: 'plain' },
      ], `chunks of ${size}`);
    }
  });

  it('ignores ids with NUL, unknown fields and a trailing incomplete block', () => {
    const parser = new SseParser('start');
    assert.deepEqual(parser.push('id: a\0b\nfoo: bar\ndata: x\n\ndata: never dispatched'), [{ kind: 'event', id: 'start', event: 'message', data: 'x' }]);
  });
});

describe('client: helpers', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.UTC(2030, 0, 1, 0, 0, 0);
    assert.equal(retryAfterMs('0', now), 0);
    assert.equal(retryAfterMs(' 12 ', now), 12_000);
    assert.equal(retryAfterMs(new Date(now + 5000).toUTCString(), now), 5000);
    assert.equal(retryAfterMs(new Date(now - 5000).toUTCString(), now), 0);
    assert.equal(retryAfterMs(null, now), undefined);
    assert.equal(retryAfterMs('soon', now), undefined);
  });

  it('fills path templates with encoded values and refuses a missing one', () => {
    assert.equal(fillPath('/auth/sessions/{id}', { id: 'ses_1/2' }), '/auth/sessions/ses_1%2F2');
    assert.throws(() => fillPath('/auth/sessions/{id}', {}), /missing path parameter "id"/);
  });

  it('stops paginating on has_more false and refuses a cursor that does not move', async () => {
    const pages = [
      { data: [1, 2], next_cursor: 'a', has_more: true },
      { data: [3], next_cursor: null, has_more: false },
    ];
    const seen: (string | undefined)[] = [];
    assert.deepEqual(await paginate(async (cursor) => (seen.push(cursor), pages[seen.length - 1]!)).toArray(), [1, 2, 3]);
    assert.deepEqual(seen, [undefined, 'a']);
    const stuck = paginate(async () => ({ data: [1], next_cursor: 'same', has_more: true }));
    await assert.rejects(stuck.toArray(), /same cursor twice/);
  });
});
