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
