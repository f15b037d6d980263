import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHmac, randomBytes } from 'node:crypto';
import { dirname } from 'node:path';

/**
 * The key that seals secrets at rest. From SECRET_KEY when set (required with PostgreSQL, where
 * several nodes must share it); on the embedded SQLite default, a key file beside the database,
 * made on first start with owner-only permissions, so `npm start` needs no setup.
 */
export function loadSecretKey(config: { secretKey?: string; secretKeyFile: string }): Buffer {
  if (config.secretKey) return Buffer.from(config.secretKey, 'base64url');
  if (!existsSync(config.secretKeyFile)) {
    mkdirSync(dirname(config.secretKeyFile), { recursive: true });
    writeFileSync(config.secretKeyFile, randomBytes(32).toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
  }
  const key = Buffer.from(readFileSync(config.secretKeyFile, 'utf8').trim(), 'base64url');
  if (key.length !== 32) throw new Error(`${config.secretKeyFile} does not hold a 32-byte base64url key`);
  return key;
}

/**
 * The keyring (decision 110): the key everything is sealed under now, then the keys this node
 * also accepts (SECRET_KEYS_ACCEPTED) to open values and check keyed hashes made under them,
 * during a rotation. Never empty; the first key is the current one.
 */
export interface Keyring {
  readonly keys: readonly Buffer[];
}

export function loadKeyring(config: { secretKey?: string; secretKeyFile: string; acceptedSecretKeys: readonly string[] }): Keyring {
  const current = loadSecretKey(config);
  const keys = [current];
  for (const raw of config.acceptedSecretKeys) {
    const key = Buffer.from(raw, 'base64url');
    if (!keys.some((k) => k.equals(key))) keys.push(key);
  }
  return { keys };
}

/**
 * A key's public name, stored with every value sealed under it so a value names the key that
 * opens it: 8 characters of an HMAC of a fixed label, which says nothing about the key itself.
 */
export function keyId(key: Buffer): string {
  return createHmac('sha256', key).update('vid:key-id').digest().subarray(0, 6).toString('base64url');
}

/** A key for one purpose derived from the secret key (HMAC as a PRF), so purposes never share a key. */
export function subkey(secretKey: Buffer, purpose: string): Buffer {
  return createHmac('sha256', secretKey).update(`vid:${purpose}`).digest();
}
