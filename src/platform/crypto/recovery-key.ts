import { randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256Base64url } from './tokens.js';

/**
 * Recovery keys: 160 random bits written in Crockford base32 (no I, L, O, U: nothing to misread)
 * as 8 groups of 4, e.g. `7K2M-9QXD-…`. Typing is forgiving: case, spaces and dashes are
 * ignored, and I/L read as 1, O as 0.
 */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const BITS = 160;

export function generateRecoveryKey(): string {
  const bytes = randomBytes(BITS / 8);
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out.match(/.{4}/g)!.join('-');
}

/** The canonical form a typed key is compared in; undefined when it cannot be a key of ours. */
export function normalizeRecoveryKey(typed: string): string | undefined {
  const compact = typed.toUpperCase().replace(/[\s-]/g, '').replace(/[IL]/g, '1').replace(/O/g, '0');
  if (compact.length !== BITS / 5 || [...compact].some((c) => !ALPHABET.includes(c))) return undefined;
  return compact;
}

/** 160 bits of entropy need no slow hash: SHA-256 of the canonical form is the verifier. */
export function recoveryKeyVerifier(canonical: string): string {
  return sha256Base64url(`vid-recovery-key:${canonical}`);
}

export function verifiersMatch(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
