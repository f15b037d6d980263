import assert from 'node:assert/strict';
import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { createSecretBox, SealedUnderUnknownKey } from './secret-box.js';
import { keyId } from './secret-key.js';

// Pure unit tests of the at-rest sealing of TOTP secrets and recovery keys (AES-256-GCM,
// the purpose as associated data).

const key = randomBytes(32);
const box = createSecretBox(key);

/** Flips one bit of one dot-separated part of a sealed value. */
function tamper(sealed: string, part: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[part]!, 'base64url');
  bytes[0] = bytes[0]! ^ 0x01;
  parts[part] = bytes.toString('base64url');
  return parts.join('.');
}

describe('secret box', () => {
  it('round-trips, including empty and non-ASCII text', () => {
    for (const plaintext of ['JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', '7K2M-9QXD-AB12-CD34-EF56-GH78-JK90-MNPQ', '', 'Grüße, 日本語 🔑']) {
      const sealed = box.seal(plaintext, 'totp-secret');
      assert.equal(box.open(sealed, 'totp-secret'), plaintext);
    }
  });

  it('hides the plaintext and uses a fresh IV every time', () => {
    const plaintext = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    const a = box.seal(plaintext, 'totp-secret');
    const b = box.seal(plaintext, 'totp-secret');
    assert.notEqual(a, b);
    assert.match(a, /^v2\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/, 'version, key id, 96-bit IV, body, 128-bit tag');
    for (const sealed of [a, b]) {
      assert.ok(!sealed.includes(plaintext));
      assert.ok(!sealed.includes(Buffer.from(plaintext).toString('base64url')));
    }
  });

  it('refuses to open under another purpose', () => {
    const sealed = box.seal('secret', 'totp-secret');
    assert.throws(() => box.open(sealed, 'recovery-key'));
    assert.throws(() => box.open(sealed, ''));
  });

  it('refuses tampered IVs, bodies and tags', () => {
    const sealed = box.seal('a secret worth keeping', 'recovery-key');
    for (const part of [2, 3, 4]) assert.throws(() => box.open(tamper(sealed, part), 'recovery-key'), `part ${part}`);
  });

  it('refuses truncated tags: only the full 128-bit GCM tag authenticates', () => {
    // Node accepts GCM tags of 4 to 16 bytes unless authTagLength is given, and then checks only
    // the bytes it was handed: a 4-byte tag would leave 32 bits of forgery resistance.
    const sealed = box.seal('a secret worth keeping', 'recovery-key');
    const [version, id, iv, body, tag] = sealed.split('.');
    for (const bytes of [4, 8, 12, 15]) {
      const truncated = Buffer.from(tag!, 'base64url').subarray(0, bytes).toString('base64url');
      assert.throws(() => box.open([version, id, iv, body, truncated].join('.'), 'recovery-key'), `a ${bytes}-byte tag was accepted`);
    }
  });

  it('refuses another key, unknown versions and malformed values', () => {
    const sealed = box.seal('secret', 'totp-secret');
    assert.throws(() => createSecretBox(randomBytes(32)).open(sealed, 'totp-secret'));
    assert.throws(() => box.open(sealed.replace(/^v2\./, 'v3.'), 'totp-secret'));
    for (const malformed of ['', 'v1', 'v1.a', 'v1.a.b', 'v2.a.b.c', 'plain text']) assert.throws(() => box.open(malformed, 'totp-secret'), JSON.stringify(malformed));
  });

  it('opens values under any key of the ring by the key id they carry, and seals under the first', () => {
    const older = randomBytes(32);
    const newer = randomBytes(32);
    const sealedOld = createSecretBox(older).seal('old secret', 'totp-secret');
    const ring = createSecretBox([newer, older]);
    assert.equal(ring.open(sealedOld, 'totp-secret'), 'old secret');
    assert.equal(ring.isCurrent(sealedOld), false);
    const sealedNew = ring.seal('new secret', 'totp-secret');
    assert.ok(ring.isCurrent(sealedNew));
    assert.ok(sealedNew.startsWith(`v2.${keyId(newer)}.`));
    // Without the older key, the value names a key this box lacks: the error says which.
    assert.throws(() => createSecretBox(newer).open(sealedOld, 'totp-secret'), (error: unknown) => error instanceof SealedUnderUnknownKey && error.keyId === keyId(older));
  });

  it('opens the first format (v1, no key id) under whichever key of the ring authenticates it', () => {
    const older = randomBytes(32);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', older, iv);
    cipher.setAAD(Buffer.from('recovery-key'));
    const body = Buffer.concat([cipher.update('legacy', 'utf8'), cipher.final()]);
    const v1 = ['v1', iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    assert.equal(createSecretBox([randomBytes(32), older]).open(v1, 'recovery-key'), 'legacy');
    assert.throws(() => createSecretBox(randomBytes(32)).open(v1, 'recovery-key'));
    assert.throws(() => createSecretBox([randomBytes(32), older]).open(v1, 'totp-secret'), 'the purpose still binds');
  });

  it('key ids name keys without revealing them', () => {
    const key = randomBytes(32);
    assert.match(keyId(key), /^[A-Za-z0-9_-]{8}$/);
    assert.equal(keyId(key), keyId(Buffer.from(key)));
    assert.notEqual(keyId(key), keyId(randomBytes(32)));
    assert.ok(!key.toString('base64url').includes(keyId(key)));
  });

  it('needs a 32-byte key', () => {
    assert.throws(() => createSecretBox(randomBytes(16)));
    assert.throws(() => createSecretBox(Buffer.alloc(0)));
    assert.doesNotThrow(() => createSecretBox(Buffer.alloc(32, 1)));
  });
});
