import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import basicAuth from 'basic-auth';
import { newId } from '../../platform/ids.js';

/**
 * Address-book passwords (decision 150): `vidcd_<id>_<secret>`. The prefix lets secret scanners
 * recognise a leaked one; the id names the row to check, so a request costs one indexed read
 * and one HMAC, never a search; the secret is 256 random bits (PRODUCT §9: at least 128).
 */
export const PASSWORD_PREFIX = 'vidcd_';
const PASSWORD = /^vidcd_(dav_[A-Za-z0-9_-]{22})_[A-Za-z0-9_-]{43}$/;

export function newPassword(): { id: string; password: string } {
  const id = newId('dav');
  return { id, password: `${PASSWORD_PREFIX}${id}_${randomBytes(32).toString('base64url')}` };
}

/** The token id a well-formed password carries; undefined for anything else. */
export function tokenIdOf(password: string): string | undefined {
  return PASSWORD.exec(password)?.[1];
}

/**
 * The user-id and password of an `Authorization: Basic` header (RFC 7617 §2: the scheme in any
 * case, base64 of user-id ":" password, decoded as UTF-8 per §2.1's charset), parsed by the
 * `basic-auth` package; undefined when the header is not that.
 */
export function basicCredentials(header: string): { userId: string; password: string } | undefined {
  const parsed = basicAuth.parse(header);
  return parsed ? { userId: parsed.name, password: parsed.pass } : undefined;
}

/**
 * Keyed hashes of passwords (HMAC-SHA-256 under a key derived from SECRET_KEY, decision 110):
 * a copy of the database alone lets nobody test guesses. New hashes use the current key; a check
 * tries every key of the ring, in constant time per key.
 */
export function passwordHasher(keys: readonly Buffer[]) {
  const hashUnder = (key: Buffer, password: string) => createHmac('sha256', key).update(password).digest('base64url');
  return {
    hash: (password: string) => hashUnder(keys[0]!, password),
    /** The position in the ring of the key the stored hash was made under; -1 when none matches. */
    keyOf(password: string, stored: string): number {
      const expected = Buffer.from(stored);
      let found = -1;
      keys.forEach((key, index) => {
        const actual = Buffer.from(hashUnder(key, password));
        if (found === -1 && actual.length === expected.length && timingSafeEqual(actual, expected)) found = index;
      });
      return found;
    },
  };
}

export type PasswordHasher = ReturnType<typeof passwordHasher>;
