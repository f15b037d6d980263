import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from './config.js';

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
