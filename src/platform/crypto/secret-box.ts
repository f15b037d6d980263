import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { keyId } from './secret-key.js';

/**
 * Authenticated encryption at rest (AES-256-GCM, NIST SP 800-38D) for secrets we must read back:
 * TOTP seeds, recovery keys, share-link tokens, idempotent replies. The purpose string is bound
 * as associated data, so a TOTP secret cannot be decrypted as a recovery key.
 *
 * Format "v2.<key id>.<iv>.<ciphertext>.<tag>" (base64url parts): sealed under the keyring's
 * current key, opened with whichever key the id names, so keys can rotate (decision 110). The
 * first format, "v1.<iv>.<ciphertext>.<tag>", named no key; it still opens, under any key of
 * the ring that authenticates it, until `npm run rotate-secrets` re-seals it.
 */
export interface SecretBox {
  seal(plaintext: string, purpose: string): string;
  open(sealed: string, purpose: string): string;
  /** Whether a sealed value is under the current key (else rotation re-seals it). */
  isCurrent(sealed: string): boolean;
  /** What every value sealed under the current key starts with (rotation selects the others). */
  readonly currentPrefix: string;
}

export class SealedUnderUnknownKey extends Error {
  constructor(readonly keyId: string) {
    super(`a value is sealed under a key this node does not hold (key id ${keyId}): add that key to SECRET_KEYS_ACCEPTED`);
    this.name = 'SealedUnderUnknownKey';
  }
}

function decrypt(key: Buffer, iv: string, body: string, tag: string, purpose: string): string {
  // A full 16-byte tag only: Node would otherwise accept truncated tags (NIST SP 800-38D §5.2.1.2).
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: 16 });
  decipher.setAAD(Buffer.from(purpose));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

/** `keys`: the current key first, then keys accepted for opening only. */
export function createSecretBox(keys: Buffer | readonly Buffer[]): SecretBox {
  const ring = Buffer.isBuffer(keys) ? [keys] : [...keys];
  if (ring.length === 0 || ring.some((key) => key.length !== 32)) throw new Error('every secret key must be 32 bytes');
  const current = ring[0]!;
  const byId = new Map(ring.map((key) => [keyId(key), key] as const));
  const currentPrefix = `v2.${keyId(current)}.`;
  return {
    currentPrefix,
    seal(plaintext, purpose) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      cipher.setAAD(Buffer.from(purpose));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return currentPrefix + [iv, body, cipher.getAuthTag()].map((part) => part.toString('base64url')).join('.');
    },
    open(sealed, purpose) {
      const parts = sealed.split('.');
      if (parts[0] === 'v2' && parts.length === 5) {
        const [, id, iv, body, tag] = parts as [string, string, string, string, string];
        const key = byId.get(id);
        if (!key) throw new SealedUnderUnknownKey(id);
        return decrypt(key, iv, body, tag, purpose);
      }
      if (parts[0] === 'v1' && parts.length === 4) {
        const [, iv, body, tag] = parts as [string, string, string, string];
        // No key id: the key that authenticates it is the one (GCM's tag; a wrong key fails it).
        let failure: unknown;
        for (const key of ring) {
          try {
            return decrypt(key, iv, body, tag, purpose);
          } catch (error) {
            failure = error;
          }
        }
        throw failure;
      }
      throw new Error('unknown sealed format');
    },
    isCurrent: (sealed) => sealed.startsWith(currentPrefix),
  };
}
