import { Secret, TOTP } from 'otpauth';

/**
 * TOTP per RFC 6238 with what authenticator apps support: SHA-1, 6 digits, 30 s steps, a
 * 160-bit secret from a CSPRNG (RFC 4226 §4 R6), base32 without padding.
 */
export const TOTP_PERIOD_S = 30;
const DIGITS = 6;

export function generateTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totpFor(secret: string, issuer: string, account: string): TOTP {
  return new TOTP({ issuer, label: account, algorithm: 'SHA1', digits: DIGITS, period: TOTP_PERIOD_S, secret: Secret.fromBase32(secret) });
}

/** otpauth://totp/Issuer:account?secret=…&issuer=Issuer — issuer equal to the label prefix. */
export function totpUri(secret: string, issuer: string, account: string): string {
  return totpFor(secret, issuer, account).toString();
}

/**
 * The time step a code belongs to, when it is valid now or one step either side (RFC 6238 §5.2
 * drift allowance); undefined otherwise. The caller refuses a step it already accepted.
 */
export function matchingStep(secret: string, code: string, now: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  // otpauth compares in constant time and returns the offset of the matching step.
  const delta = totpFor(secret, 'x', 'x').validate({ token: code, timestamp: now, window: 1 });
  if (delta === null) return undefined;
  return Math.floor(now / 1000 / TOTP_PERIOD_S) + delta;
}
