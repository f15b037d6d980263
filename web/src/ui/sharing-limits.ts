// The lengths the server enforces on profiles, requests and notes, as the boxes' maxlength
// (nothing typed is cut off silently). test/web/sharing-limits.test.ts holds them to the server's.
export const PROFILE_BOXES = {
  /** A profile's name, once trimmed (PROFILE_LIMITS.nameLength; the schema alone allows 256). */
  name: 64,
  /** A profile's description (PROFILE_LIMITS.descriptionLength). */
  description: 280,
  /** The label a profile gives a field it shows (PROFILE_LIMITS.labelLength). */
  label: 64,
} as const;

export const CONTACT_BOXES = {
  /** The message with a request (CONTACT_LIMITS.messageLength). */
  message: 280,
  /** A private note on a contact (ANNOTATION_LIMITS.noteLength). */
  note: 4000,
  /** One label (ANNOTATION_LIMITS.labelLength) and how many a contact takes (ANNOTATION_LIMITS.labels). */
  label: 32,
  labels: 20,
} as const;
