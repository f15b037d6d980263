/**
 * Limits that protect the service (docs/fields.md). A card is read by every subscriber on every
 * sync, so both its size and its number of fields are bounded.
 */
export const FIELD_LIMITS = {
  /** Fields one account may hold; the next create is 409 field_limit_reached. */
  maxFieldsPerAccount: 200,
  /** Size of a value as JSON in UTF-8 bytes, as sent and as stored; larger is 413 field_value_too_large. */
  maxValueBytes: 4096,
  /** Length of a field's label in characters. */
  maxLabelLength: 64,
} as const;

export type FieldLimits = { maxFieldsPerAccount: number; maxValueBytes: number; maxLabelLength: number };
