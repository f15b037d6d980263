// Generated from the signal catalogue (src/platform/signals/catalogue.ts) by
// `npx tsx scripts/write-signal-kinds.ts`. Do not edit by hand.

/** Each signal kind and the resource it names (a template where it names one of several). */
export const SIGNAL_RESOURCES = {
  /** Display name, locale or default country changed. */
  "me.changed": "/me",
  /** An identity field was added, changed or removed. */
  "fields.changed": "/me/fields",
  /** A photo was added or deleted. */
  "photos.changed": "/me/photos",
  /** A profile or its exposures changed. */
  "profiles.changed": "/profiles",
  /** A subscription to you was requested, approved, moved, revoked or ended. */
  "subscriptions.changed": "/subscriptions",
  /** One of your subscriptions changed state. */
  "contacts.changed": "/contacts",
  /** The card you see of a contact changed (only subscribers whose visible card changed get it; several edits since your last read are one signal). The card's `changed` lists the kinds of detail that changed (field types such as phone, email, postal_address, and display_name), never values, and only kinds the card showed you before or shows you now: say "new phone number" from it. */
  "contact.card.changed": "/contacts/{id}/card",
  /** Your private note or labels on a contact changed (on another of your devices). */
  "annotations.changed": "/contacts/{id}/annotation",
  /** A share link was created, used up or revoked. */
  "share_links.changed": "/share-links",
  /** An address-book password was created or revoked. */
  "dav-tokens.changed": "/dav-tokens",
  /** A passkey or TOTP authenticator was added, renamed or removed. */
  "methods.changed": "/auth/methods",
  /** A session was opened (sign-in, recovery, join) or revoked. */
  "sessions.changed": "/auth/sessions",
  /** A new device asks to join with a code: approve or deny it. */
  "join.requested": "/auth/join/pending",
  /** A join attempt was approved, denied, finished or expired. */
  "join.changed": "/auth/join/pending",
  /** A join code this account issued was used (take it off the screen: the request is in /auth/join/pending), or five wrong guesses voided it (say so, and offer a new code). */
  "join.code.changed": "/auth/join/code",
  /** Your recovery key was downloaded (on any of your devices): show the new date. */
  "recovery_key.changed": "/auth/recovery-key/state",
  /** Your key material changed: a device's key bundle was stored, replaced or removed (pull /keys/devices), or the server share changed (GET /keys/share, with a step-up, when you next need it). */
  "keys.changed": "/keys/devices",
  /** A contact's device key bundles changed (stored, replaced, or removed with a passkey): pull them again (active subscribers only). */
  "contact.keys.changed": "/contacts/{id}/keys",
  /** The account itself changed (recovered, deleted, undeleted). */
  "account.changed": "/me",
} as const;
