import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressBucket } from './address-bucket.js';

describe('addressBucket: what per-address limits count', () => {
  it('keeps an IPv4 address whole, also when written IPv4-mapped', () => {
    assert.equal(addressBucket('203.0.113.7'), '203.0.113.7');
    assert.equal(addressBucket('::ffff:203.0.113.7'), '203.0.113.7');
  });

  it('counts an IPv6 address by its /64, however it is written', () => {
    const bucket = '2001:db8:0:1::/64';
    assert.equal(addressBucket('2001:db8:0:1::1'), bucket);
    assert.equal(addressBucket('2001:DB8:0000:0001:ffff:ffff:ffff:ffff'), bucket);
    assert.equal(addressBucket('2001:db8::1:0:0:0:9'), bucket);
    assert.equal(addressBucket('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.notEqual(addressBucket('2001:db8:0:2::1'), bucket);
    assert.equal(addressBucket('::1'), '0:0:0:0::/64');
  });
});
