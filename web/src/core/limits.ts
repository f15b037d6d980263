// The lengths the server enforces, as the boxes' maxlength: nothing typed is cut off silently.
// test/web/limits.test.ts holds them to the server's schemas.
export const LIMITS = {
  /** PATCH /me display_name. */
  displayName: 64,
  /** PATCH /auth/methods/{id} name. */
  passkeyName: 64,
  /** POST /auth/totp name. */
  totpName: 64,
  /** A field's label (FIELD_LIMITS.maxLabelLength). */
  fieldLabel: 64,
  /** POST /dav-tokens label (DAV_TOKEN_LIMITS.labelLength). */
  davTokenLabel: 64,
  /** Address-book passwords an account may hold (DAV_TOKEN_LIMITS.perAccount). */
  davTokens: 10,
} as const;
