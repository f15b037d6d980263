import { createHash, timingSafeEqual } from 'node:crypto';
import { parseDictionary } from 'structured-headers';

/**
 * Content-Digest (RFC 9530 §2): a Structured Fields Dictionary (RFC 8941 §3.2) whose keys are
 * hash algorithms from the IANA registry (§7.2) and whose values are byte sequences of the
 * digest of the content, the body bytes as sent (§2, "content" not the representation before
 * any coding). Only sha-256 is written and required here.
 */
export function contentDigest(body: string | Buffer): string {
  return `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
}

/**
 * Checks a Content-Digest field against the exact body bytes. `malformed` when the field is not
 * a Dictionary or carries no sha-256 byte sequence of 32 bytes; other algorithms are ignored
 * (RFC 9530 §2: a recipient may ignore digests it does not use).
 */
export function checkContentDigest(field: string, body: string | Buffer): 'ok' | 'malformed' | 'mismatch' {
  let dictionary: ReturnType<typeof parseDictionary>;
  try {
    dictionary = parseDictionary(field);
  } catch {
    return 'malformed';
  }
  const member = dictionary.get('sha-256');
  if (!member || !(member[0] instanceof ArrayBuffer) || member[0].byteLength !== 32) return 'malformed';
  const expected = createHash('sha256').update(body).digest();
  return timingSafeEqual(Buffer.from(member[0]), expected) ? 'ok' : 'mismatch';
}
