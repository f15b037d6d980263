import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from './config.js';
import { newRegionKey } from './federation/keys.js';

const trustProxy = (value?: string) => loadConfig({ TRUST_PROXY: value, SECRET_KEY: 'a'.repeat(43) }).trustProxy;

describe('TRUST_PROXY (docs/deploy.md, Client addresses)', () => {
  it('is off unless set: the socket peer is the client', () => {
    assert.equal(trustProxy(undefined), false);
    assert.equal(trustProxy(''), false);
    assert.equal(trustProxy('false'), false);
    assert.equal(trustProxy('0'), false);
  });

  it('takes a number of hops or the proxies\' addresses and ranges', () => {
    assert.equal(trustProxy('1'), 1);
    assert.equal(trustProxy('2'), 2);
    assert.deepEqual(trustProxy('10.0.0.5, 10.0.0.0/24,fd00::/8,loopback'), ['10.0.0.5', '10.0.0.0/24', 'fd00::/8', 'loopback']);
  });

  it('refuses true, which would believe the X-Forwarded-For a client writes', () => {
    assert.throws(() => trustProxy('true'), /TRUST_PROXY=true/);
  });

  it('refuses what is not an address or a range', () => {
    for (const bad of ['yes', '10.0.0.0/33', 'fd00::/129', '10.0.0.1/8/2', 'example.com']) {
      assert.throws(() => trustProxy(bad), /TRUST_PROXY/, bad);
    }
  });
});

describe('BENCH_WITHOUT_CARD_CHANGE_LOG (the capacity benchmark only)', () => {
  const withoutLog = (value?: string) => loadConfig({ BENCH_WITHOUT_CARD_CHANGE_LOG: value, SECRET_KEY: 'a'.repeat(43) }).benchmark.withoutCardChangeLog;

  it('is off unless set to 1', () => {
    assert.equal(withoutLog(undefined), false);
    assert.equal(withoutLog(''), false);
    assert.equal(withoutLog('0'), false);
    assert.equal(withoutLog('1'), true);
  });

  it('refuses anything else', () => {
    for (const bad of ['true', 'yes', '2']) assert.throws(() => withoutLog(bad), /BENCH_WITHOUT_CARD_CHANGE_LOG/, bad);
  });
});

describe('REGION_KEY, REGIONS, REGION_REQUEST_MAX_AGE_S (federation between regions)', () => {
  const eu = newRegionKey('eu-2026-11');
  const us1 = newRegionKey('us-2026-05');
  const us2 = newRegionKey('us-2026-11');
  const ap = newRegionKey('ap-2026-11');
  const usPeer = { id: 'us', url: 'https://us.vid.example', keys: [us1.publicJwk, us2.publicJwk] };
  const regions = (env: Record<string, string | undefined>) => loadConfig({ SECRET_KEY: 'a'.repeat(43), ...env }).regions;
  const withPeers = (peers: unknown) => regions({ REGIONS: JSON.stringify(peers) });

  it('is off unless set: no key, no peers, 60 s', () => {
    const config = regions({});
    assert.deepEqual(config.self, { id: 'eu' });
    assert.deepEqual(config.peers, []);
    assert.equal(config.maxAgeSeconds, 60);
    assert.equal(config.peer('us'), undefined);
  });

  it('reads the private key with its kid, and the peers with their keys by kid', () => {
    const config = regions({
      REGION: 'eu',
      REGION_KEY: JSON.stringify(eu.privateJwk),
      REGIONS: JSON.stringify([{ ...usPeer, url: 'https://us.vid.example/' }, { id: 'ap', url: 'http://ap.internal:8080', keys: [ap.publicJwk] }]),
      REGION_REQUEST_MAX_AGE_S: '30',
    });
    assert.equal(config.self.id, 'eu');
    assert.equal(config.self.key?.kid, 'eu-2026-11');
    assert.equal(config.self.key?.privateKey.type, 'private');
    assert.equal(config.self.key?.privateKey.asymmetricKeyType, 'ed25519');
    assert.equal(config.maxAgeSeconds, 30);
    assert.deepEqual(config.peers.map((peer) => [peer.id, peer.url, [...peer.keys.keys()]]), [
      ['us', 'https://us.vid.example', ['us-2026-05', 'us-2026-11']],
      ['ap', 'http://ap.internal:8080', ['ap-2026-11']],
    ]);
    assert.equal(config.peer('us')?.keys.get('us-2026-11')?.export({ format: 'jwk' }).x, us2.publicJwk.x);
    assert.equal(config.peer('ap')?.id, 'ap');
    assert.equal(config.peer('eu'), undefined);
  });

  it('refuses a REGION_KEY that is not an Ed25519 private JWK with a kid', () => {
    const { kid: _kid, ...withoutKid } = eu.privateJwk;
    const cases: Array<[string, RegExp]> = [
      ['not json', /REGION_KEY must be JSON/],
      [JSON.stringify({ ...eu.privateJwk, crv: 'X25519' }), /Ed25519 JWK/],
      [JSON.stringify({ kty: 'EC', crv: 'P-256', x: 'a', y: 'b', d: 'c', kid: 'k' }), /Ed25519 JWK/],
      [JSON.stringify(eu.publicJwk), /private JWK/],
      [JSON.stringify(withoutKid), /REGION_KEY needs a "kid"/],
      [JSON.stringify({ ...eu.privateJwk, kid: 'has space' }), /needs a "kid"/],
      [JSON.stringify({ ...eu.privateJwk, x: us1.publicJwk.x }), /"x" is not the public key of "d"/],
      [JSON.stringify({ ...eu.privateJwk, d: 'AAAA' }), /not a valid Ed25519 private key/],
    ];
    for (const [value, message] of cases) assert.throws(() => regions({ REGION_KEY: value }), message, value);
  });

  it('refuses peers with a bad id, the own region, a repeated id', () => {
    assert.throws(() => regions({ REGIONS: '{"id":"us"}' }), /REGIONS must be a JSON array/);
    assert.throws(() => regions({ REGIONS: '[' }), /REGIONS must be JSON/);
    assert.throws(() => withPeers(['us']), /REGIONS\[0\] must be an object/);
    for (const id of ['US', 'u', 'toolongid', 'u-s', 1, undefined]) {
      assert.throws(() => withPeers([{ ...usPeer, id }]), /REGIONS\[0\]\.id must be 2 to 8 lowercase letters/, String(id));
    }
    assert.throws(() => withPeers([{ ...usPeer, id: 'eu' }]), /this region's own REGION/);
    assert.throws(() => regions({ REGION: 'us', REGIONS: JSON.stringify([usPeer]) }), /REGIONS\[0\]\.id is "us", this region's own REGION/);
    assert.throws(() => withPeers([usPeer, { ...usPeer, keys: [ap.publicJwk] }]), /REGIONS lists "us" twice/);
  });

  it('refuses a url that is not an http(s) origin', () => {
    for (const url of ['us.vid.example', 'ftp://us.vid.example', 'https://us.vid.example/api', 'https://us.vid.example?x=1', 'https://u:p@us.vid.example', 42]) {
      assert.throws(() => withPeers([{ ...usPeer, url }]), /REGIONS\[0\]\.url/, String(url));
    }
  });

  it('refuses keys that are not Ed25519 public JWKs with a kid of their own', () => {
    const { kid: _kid, ...withoutKid } = us1.publicJwk;
    assert.throws(() => withPeers([{ ...usPeer, keys: [] }]), /REGIONS\[0\]\.keys must list at least one/);
    assert.throws(() => withPeers([{ ...usPeer, keys: us1.publicJwk }]), /REGIONS\[0\]\.keys must list at least one/);
    assert.throws(() => withPeers([{ ...usPeer, keys: [us1.publicJwk, { ...us2.publicJwk, crv: 'P-256' }] }]), /REGIONS\[0\]\.keys\[1\] must be an Ed25519 public JWK/);
    assert.throws(() => withPeers([{ ...usPeer, keys: [us1.privateJwk] }]), /REGIONS\[0\]\.keys\[0\] is a private key/);
    assert.throws(() => withPeers([{ ...usPeer, keys: [withoutKid] }]), /REGIONS\[0\]\.keys\[0\] needs a "kid"/);
    assert.throws(() => withPeers([{ ...usPeer, keys: [{ ...us1.publicJwk, x: 'AAAA' }] }]), /not a valid Ed25519 public key/);
    assert.throws(() => withPeers([{ ...usPeer, keys: [us1.publicJwk, { ...us2.publicJwk, kid: 'us-2026-05' }] }]), /kid "us-2026-05" is listed twice/);
    // A kid names one key in the whole federation: it is how a receiver knows the sender.
    assert.throws(() => withPeers([usPeer, { id: 'ap', url: 'https://ap.vid.example', keys: [{ ...ap.publicJwk, kid: 'us-2026-11' }] }]), /kid "us-2026-11" is listed twice/);
  });

  it('refuses a REGION that is no region id once federation is configured', () => {
    assert.equal(regions({ REGION: 'EU-west' }).self.id, 'EU-west');
    assert.throws(() => regions({ REGION: 'EU-west', REGION_KEY: JSON.stringify(eu.privateJwk) }), /REGION must be 2 to 8 lowercase letters/);
  });

  it('refuses a REGION_REQUEST_MAX_AGE_S outside 1 s to an hour', () => {
    for (const bad of ['0', '-1', '1.5', 'soon', '3601']) assert.throws(() => regions({ REGION_REQUEST_MAX_AGE_S: bad }), /REGION_REQUEST_MAX_AGE_S/, bad);
  });
});
