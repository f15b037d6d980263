import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateRecoveryKey, normalizeRecoveryKey, recoveryKeyVerifier, verifiersMatch } from './recovery-key.js';

// Pure unit tests of recovery keys: format, entropy, forgiving normalisation, verifiers.

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const FORMAT = /^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){7}$/;

/** Decodes the 32 symbols back into the 20 bytes they encode. */
function decode(key: string): Buffer {
  let bits = '';
  for (const c of key.replace(/-/g, '')) bits += CROCKFORD.indexOf(c).toString(2).padStart(5, '0');
  return Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
}

describe('recovery keys', () => {
  it('are 8 groups of 4 Crockford base32 symbols: 160 bits, never I, L, O or U', () => {
    for (let i = 0; i < 100; i++) {
      const key = generateRecoveryKey();
      assert.match(key, FORMAT);
      assert.ok(!/[ILOU]/.test(key));
      assert.equal(key.replace(/-/g, '').length * Math.log2(CROCKFORD.length), 160);
      assert.equal(decode(key).length, 20);
    }
  });

  it('are random: no repeats, every symbol used, every bit position varies', () => {
    const keys = Array.from({ length: 400 }, generateRecoveryKey);
    assert.equal(new Set(keys).size, keys.length);
    const symbols = new Set(keys.join('').replace(/-/g, ''));
    assert.equal(symbols.size, 32, 'the whole alphabet appears');
    // Each of the 160 bit positions is 0 in some key and 1 in another (no stuck bits, as a
    // 32-bit overflow in the encoder would cause).
    const ones = new Array(160).fill(0);
    for (const key of keys) {
      const bytes = decode(key);
      for (let bit = 0; bit < 160; bit++) ones[bit] += (bytes[bit >> 3]! >> (7 - (bit & 7))) & 1;
    }
    for (let bit = 0; bit < 160; bit++) assert.ok(ones[bit] > 100 && ones[bit] < 300, `bit ${bit} set in ${ones[bit]} of 400`);
  });

  it('normalise as a person types them: case, spaces and dashes do not matter; I and L read as 1, O as 0', () => {
    const key = generateRecoveryKey();
    const canonical = key.replace(/-/g, '');
    assert.equal(normalizeRecoveryKey(key), canonical);
    assert.equal(normalizeRecoveryKey(key.toLowerCase()), canonical);
    assert.equal(normalizeRecoveryKey(key.replace(/-/g, ' ')), canonical);
    assert.equal(normalizeRecoveryKey(`  ${key.toLowerCase().replace(/-/g, '  ')}\n`), canonical);
    assert.equal(normalizeRecoveryKey(canonical.match(/.{2}/g)!.join('-')), canonical);

    const fixed = 'AB1C-D0EF-1111-0000-GHJK-MNPQ-RSTV-WXYZ';
    const fixedCanonical = 'AB1CD0EF11110000GHJKMNPQRSTVWXYZ';
    assert.equal(normalizeRecoveryKey(fixed), fixedCanonical);
    assert.equal(normalizeRecoveryKey('ABIC-DOEF-IlLi-OoOo-GHJK-MNPQ-RSTV-WXYZ'), fixedCanonical);
    assert.equal(normalizeRecoveryKey('abic doef ilLi oOoO ghjk mnpq rstv wxyz'), fixedCanonical);
  });

  it('refuse what cannot be a key: wrong length, U, punctuation', () => {
    const key = generateRecoveryKey();
    assert.equal(normalizeRecoveryKey(''), undefined);
    assert.equal(normalizeRecoveryKey(key.slice(0, -1)), undefined, 'one symbol short');
    assert.equal(normalizeRecoveryKey(`${key}A`), undefined, 'one symbol long');
    assert.equal(normalizeRecoveryKey(`U${key.slice(1)}`), undefined, 'U is not in the alphabet');
    assert.equal(normalizeRecoveryKey(`${key.slice(0, -1)}!`), undefined);
    assert.equal(normalizeRecoveryKey(key.replace(/-/g, '_')), undefined);
  });

  it('verifiers: equal for the same canonical key however typed, different otherwise, never the key itself', () => {
    const key = generateRecoveryKey();
    const verifier = recoveryKeyVerifier(normalizeRecoveryKey(key)!);
    assert.match(verifier, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(!verifier.includes(key.replace(/-/g, '')));
    assert.equal(recoveryKeyVerifier(normalizeRecoveryKey(key.toLowerCase().replace(/-/g, ' '))!), verifier);
    assert.ok(verifiersMatch(verifier, recoveryKeyVerifier(normalizeRecoveryKey(key)!)));

    const other = generateRecoveryKey();
    assert.notEqual(recoveryKeyVerifier(normalizeRecoveryKey(other)!), verifier);
    assert.equal(verifiersMatch(verifier, recoveryKeyVerifier(normalizeRecoveryKey(other)!)), false);
    // One symbol changed is another key.
    const canonical = normalizeRecoveryKey(key)!;
    const flipped = (canonical[0] === 'A' ? 'B' : 'A') + canonical.slice(1);
    assert.equal(verifiersMatch(verifier, recoveryKeyVerifier(flipped)), false);
    // Different lengths never match (and do not throw).
    assert.equal(verifiersMatch(verifier, verifier.slice(1)), false);
    assert.equal(verifiersMatch('', verifier), false);
  });
});
