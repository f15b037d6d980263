import { randomBytes } from 'node:crypto';

/**
 * Opaque, non-sequential ids with a type prefix (PRODUCT §0): `acc_…`, `ses_…`, `pk_…`.
 * 16 random bytes (128 bits) so ids cannot be guessed or enumerated.
 */
export type IdPrefix = 'acc' | 'ses' | 'pk' | 'cer' | 'fld' | 'prf' | 'sub' | 'evt' | 'totp' | 'join' | 'shl' | 'sec' | 'key' | 'dav' | 'pho' | 'dsl';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(16).toString('base64url')}`;
}

const ID_PATTERN = /^[a-z]{2,5}_[A-Za-z0-9_-]{22}$/;

export function looksLikeId(value: string, prefix: IdPrefix): boolean {
  return value.startsWith(`${prefix}_`) && ID_PATTERN.test(value);
}
