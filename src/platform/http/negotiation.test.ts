// RFC 9110 §12.5.1: the version of text/vcard an Accept header prefers, if any (RFC 6350 §10.1).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acceptedParameter } from './negotiation.js';

const choose = (accept: string | undefined) => acceptedParameter(accept, 'text/vcard;charset=utf-8', 'version', ['3.0', '4.0']);

describe('Accept with a media-type parameter', () => {
  it('picks the version asked for, by q and then by the most specific range', () => {
    for (const [accept, version] of [
      ['text/vcard; version=4.0', '4.0'],
      ['text/vcard;version=3.0', '3.0'],
      ['TEXT/VCARD; VERSION="4.0"', '4.0'],
      ['text/vcard;charset=UTF-8;version=4.0', '4.0'],
      ['text/vcard;version=3.0;q=0.5, text/vcard;version=4.0', '4.0'],
      ['text/vcard;version=4.0;q=0.1, text/vcard;version=3.0;q=0.2', '3.0'],
      ['text/vcard, text/vcard;version=4.0', '4.0'],
      ['*/*;q=0.1, text/vcard;version=4.0', '4.0'],
    ] as const) {
      assert.deepEqual(choose(accept), { kind: 'chosen', value: version }, accept);
    }
  });

  it('leaves the choice to the server when Accept names no version or another type', () => {
    for (const accept of [undefined, '', '*/*', 'text/*', 'text/vcard', 'application/json', 'text/vcard;version=2.1, */*;q=0.1', 'text/vcard;version=*']) {
      assert.deepEqual(choose(accept), { kind: 'open' }, String(accept));
    }
  });

  it('says so when Accept takes text/vcard only in versions not offered', () => {
    for (const accept of ['text/vcard;version=2.1', 'text/vcard; version=5.0, application/json', 'text/vcard;charset=iso-8859-1']) {
      assert.deepEqual(choose(accept), { kind: 'unavailable' }, accept);
    }
  });
});
