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
} as const;
