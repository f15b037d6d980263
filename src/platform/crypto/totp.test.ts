import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Secret, TOTP, URI } from 'otpauth';
import { TOTP_PERIOD_S, generateTotpSecret, matchingStep, totpUri } from './totp.js';

// Pure unit tests of the TOTP helpers (RFC 6238): no server, no database.

/** RFC 6238 Appendix B: the SHA-1 seed is the ASCII string "12345678901234567890". */
const RFC_SEED = '12345678901234567890';
const RFC_SECRET = Secret.fromLatin1(RFC_SEED);
/** [time in seconds, 8-digit SHA-1 TOTP] from RFC 6238 Appendix B. */
const RFC_VECTORS: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

const code = (secret: string, timestamp: number) =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp });

describe('TOTP (RFC 6238)', () => {
  it('otpauth reproduces the RFC 6238 Appendix B SHA-1 vectors (8 digits)', () => {
    const totp = new TOTP({ secret: RFC_SECRET, algorithm: 'SHA1', digits: 8, period: 30 });
    for (const [seconds, expected] of RFC_VECTORS) {
      assert.equal(totp.generate({ timestamp: seconds * 1000 }), expected, `T = ${seconds}`);
    }
  });

  it('matchingStep accepts the RFC vectors truncated to 6 digits, at their own time step', () => {
    // The same HOTP value mod 10^6: the last six digits of the 8-digit vectors.
    const secret = RFC_SECRET.base32;
    assert.equal(secret, 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    for (const [seconds, expected] of RFC_VECTORS) {
      const step = Math.floor(seconds / TOTP_PERIOD_S);
      assert.equal(matchingStep(secret, expected.slice(2), seconds * 1000), step, `T = ${seconds}`);
      // The 8-digit form is not a 6-digit code.
      assert.equal(matchingStep(secret, expected, seconds * 1000), undefined);
    }
  });

  it('step arithmetic: T = floor(unix seconds / 30), one step of drift either side, not two', () => {
    // T = 59 s is step 1 (30..59). At 60 s (step 2) the step-1 code is one behind: accepted as
    // step 1; at 90 s (step 3) it is two behind: refused. At 0 s (step 0) it is one ahead.
    const secret = RFC_SECRET.base32;
    const step1 = '287082';
    assert.equal(matchingStep(secret, step1, 30_000), 1, 'first instant of step 1');
    assert.equal(matchingStep(secret, step1, 59_999), 1, 'last instant of step 1');
    assert.equal(matchingStep(secret, step1, 60_000), 1, 'one step later: drift');
    assert.equal(matchingStep(secret, step1, 89_999), 1);
    assert.equal(matchingStep(secret, step1, 90_000), undefined, 'two steps later');
    assert.equal(matchingStep(secret, step1, 0), 1, 'one step earlier: drift ahead');

    const fresh = generateTotpSecret();
    const now = 1_750_000_012_345;
    const current = Math.floor(now / 30_000);
    assert.equal(matchingStep(fresh, code(fresh, now), now), current);
    assert.equal(matchingStep(fresh, code(fresh, now - 30_000), now), current - 1);
    assert.equal(matchingStep(fresh, code(fresh, now + 30_000), now), current + 1);
    for (const offset of [-60_000, 60_000, -90_000, 90_000]) {
      const far = code(fresh, now + offset);
      // Skip the rare draw where a far code collides with one inside the window.
      if ([-30_000, 0, 30_000].some((d) => code(fresh, now + d) === far)) continue;
      assert.equal(matchingStep(fresh, far, now), undefined, `offset ${offset}`);
    }
  });

  it('only six ASCII digits are a code', () => {
    const secret = generateTotpSecret();
    const now = 1_750_000_000_000;
    const valid = code(secret, now);
    assert.equal(matchingStep(secret, valid, now), Math.floor(now / 30_000));
    for (const malformed of ['', '12345', '1234567', 'abcdef', `${valid} `, ` ${valid}`, `${valid.slice(0, 5)}a`, '１２３４５６', `+${valid.slice(1)}`, `${valid}\n`]) {
      assert.equal(matchingStep(secret, malformed, now), undefined, JSON.stringify(malformed));
    }
    // Another secret's code does not match (checked against a code that differs).
    const other = generateTotpSecret();
    if (code(other, now) !== valid && ![-30_000, 30_000].some((d) => code(secret, now + d) === code(other, now))) {
      assert.equal(matchingStep(secret, code(other, now), now), undefined);
    }
  });

  it('secrets are 160 random bits in unpadded base32', () => {
    const secrets = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const secret = generateTotpSecret();
      assert.match(secret, /^[A-Z2-7]{32}$/);
      assert.equal(Buffer.from(Secret.fromBase32(secret).buffer).length, 20);
      secrets.add(secret);
    }
    assert.equal(secrets.size, 50);
  });

  it('the otpauth:// URI carries issuer (as label prefix and parameter), account, secret and the parameters apps support', () => {
    const secret = generateTotpSecret();
    const uri = totpUri(secret, 'VID', 'alice');
    assert.ok(uri.startsWith('otpauth://totp/VID:alice?'), uri);
    const url = new URL(uri);
    assert.equal(url.searchParams.get('issuer'), 'VID');
    assert.equal(url.searchParams.get('secret'), secret);
    assert.equal(url.searchParams.get('algorithm') ?? 'SHA1', 'SHA1');
    assert.equal(url.searchParams.get('digits') ?? '6', '6');
    assert.equal(url.searchParams.get('period') ?? '30', '30');

    const parsed = URI.parse(uri) as TOTP;
    assert.equal(parsed.issuer, 'VID');
    assert.equal(parsed.label, 'alice');
    assert.equal(parsed.secret.base32, secret);
    const now = 1_750_000_000_000;
    assert.equal(parsed.generate({ timestamp: now }), code(secret, now));

    // Spaces and reserved characters are percent-encoded, in the label and the issuer alike.
    const spaced = totpUri(secret, 'My VID', 'a b');
    assert.ok(spaced.startsWith('otpauth://totp/My%20VID:a%20b?'), spaced);
    assert.equal(new URL(spaced).searchParams.get('issuer'), 'My VID');
    const reparsed = URI.parse(spaced) as TOTP;
    assert.equal(reparsed.issuer, 'My VID');
    assert.equal(reparsed.label, 'a b');
  });
});
