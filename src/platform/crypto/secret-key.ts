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

/** A key for one purpose derived from the secret key (HMAC as a PRF), so purposes never share a key. */
export function subkey(secretKey: Buffer, purpose: string): Buffer {
  return createHmac('sha256', secretKey).update(`vid:${purpose}`).digest();
}
