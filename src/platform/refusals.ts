/**
 * Every refusal the service can answer, named once (the habit of node-oidc-provider's
 * lib/helpers/errors.js): the stable `code` clients branch on, its HTTP status and its title
 * (RFC 9457 §3.1.4: the same for every occurrence). `challenge` names the RFC 6750 §3.1 error a
 * refusal puts into WWW-Authenticate (RFC 9449 §7.1); the problem plugin writes that header, and
 * Retry-After when a refusal says when to come back.
 *
 * A new refusal is one line here. Codes are snake_case, except the spec's own JOIN_NOT_APPROVED.
 * An entry's name is its code, unless it names one (`code`): one code answered at two statuses.
 */
export const REFUSALS = {
  // Conventions (PRODUCT §0)
  validation_failed: { status: 400, title: 'Validation failed' },
  bad_request: { status: 400, title: 'Bad request' },
  invalid_json: { status: 400, title: 'Invalid JSON' },
  json_too_deep: { status: 400, title: 'JSON nested too deeply' },
  invalid_content_length: { status: 400, title: 'Invalid Content-Length' },
  // At the edge: answered before any route runs (docs/operations.md "Errors at the edge").
  invalid_url: { status: 400, title: 'Invalid URL' },
  malformed_request: { status: 400, title: 'Malformed request' },
  host_required: { status: 400, title: 'Host required' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  request_timeout: { status: 408, title: 'Request timeout' },
  uri_too_long: { status: 414, title: 'URI too long' },
  expectation_failed: { status: 417, title: 'Expectation failed' },
  header_fields_too_large: { status: 431, title: 'Request header fields too large' },
  invalid_cursor: { status: 400, title: 'Invalid cursor' },
  idempotency_key_required: { status: 400, title: 'Idempotency-Key required' },
  invalid_idempotency_key: { status: 400, title: 'Invalid Idempotency-Key' },
  not_found: { status: 404, title: 'Not found' },
  idempotency_key_reused: { status: 409, title: 'Idempotency-Key reused' },
  idempotency_request_in_progress: { status: 409, title: 'Request in progress' },
  // A row named by the request went away meanwhile (a foreign key the database refused): try again.
  concurrent_change: { status: 409, title: 'Concurrent change' },
  cursor_expired: { status: 410, title: 'Cursor expired' },
  version_mismatch: { status: 412, title: 'Version mismatch' },
  invalid_if_match: { status: 400, title: 'Invalid If-Match' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  precondition_required: { status: 428, title: 'Precondition required' },
  rate_limited: { status: 429, title: 'Too many requests' },
  quota_exceeded: { status: 429, title: 'Monthly quota exceeded' },
  too_many_attempts: { status: 429, title: 'Too many attempts' },
  too_many_failed_authentications: { status: 429, title: 'Too many failed authentications' },
  too_many_streams: { status: 429, title: 'Too many streams' },
  internal_error: { status: 500, title: 'Internal error' },
  overloaded: { status: 503, title: 'Service overloaded' },
  shutting_down: { status: 503, title: 'Shutting down' },
  database_unavailable: { status: 503, title: 'Not ready' },

  // Authentication (RFC 9449, RFC 6750)
  unauthenticated: { status: 401, title: 'Authentication required' },
  invalid_request: { status: 400, title: 'Invalid request', challenge: 'invalid_request' },
  invalid_dpop_proof: { status: 401, title: 'Invalid DPoP proof', challenge: 'invalid_dpop_proof' },
  invalid_token: { status: 401, title: 'Invalid token', challenge: 'invalid_token' },
  refresh_token_reused: { status: 401, title: 'Refresh token reused', challenge: 'invalid_token' },
  step_up_required: { status: 403, title: 'Step-up required' },
  ephemeral_session: { status: 403, title: 'Not allowed on an ephemeral session' },
  session_not_found: { status: 404, title: 'Session not found' },

  // Usernames, passkeys, WebAuthn ceremonies
  username_invalid: { status: 400, title: 'Invalid username' },
  username_reserved: { status: 409, title: 'Username unavailable' },
  username_confusable: { status: 409, title: 'Username unavailable' },
  username_taken: { status: 409, title: 'Username unavailable' },
  ceremony_invalid: { status: 400, title: 'Ceremony invalid' },
  ceremony_mismatch: { status: 400, title: 'Ceremony mismatch' },
  invalid_attestation: { status: 400, title: 'WebAuthn verification failed' },
  invalid_assertion: { status: 400, title: 'WebAuthn verification failed' },
  passkey_not_recognized: { status: 401, title: 'Passkey not recognized' },
  passkey_counter_regressed: { status: 401, title: 'Passkey refused' },
  method_not_found: { status: 404, title: 'Method not found' },
  credential_exists: { status: 409, title: 'Passkey already registered' },
  passkey_in_use: { status: 409, title: 'Concurrent sign-in' },
  last_method: { status: 409, title: 'Last passkey' },

  // TOTP and recovery
  totp_not_found: { status: 404, title: 'Authenticator not found' },
  totp_already_active: { status: 409, title: 'Already active' },
  totp_code_invalid: { status: 422, title: 'Invalid code' },
  recovery_refused: { status: 403, title: 'Recovery refused' },
  recovery_key_not_found: { status: 404, title: 'No recovery key' },

  // Join
  credential_required: { status: 400, title: 'Credential required' },
  JOIN_NOT_APPROVED: { status: 403, title: 'Join not approved' },
  join_denied: { status: 403, title: 'Join denied' },
  join_key_mismatch: { status: 403, title: 'Not the redeeming device' },
  factor_invalid: { status: 403, title: 'Factor refused' },
  account_not_found: { status: 404, title: 'Account not found' },
  join_attempt_not_found: { status: 404, title: 'Join attempt not found' },
  join_code_not_found: { status: 404, title: 'No join code' },
  invalid_transition: { status: 409, title: 'Invalid transition' },
  join_already_finished: { status: 409, title: 'Already finished' },
  join_attempt_expired: { status: 410, title: 'Join attempt expired' },
  join_code_invalid: { status: 422, title: 'Join code invalid' },

  // Fields and the catalog
  unknown_field_type: { status: 400, title: 'Unknown field type' },
  invalid_country: { status: 400, title: 'Invalid country' },
  country_required: { status: 400, title: 'Country required' },
  country_not_applicable: { status: 400, title: 'Country not applicable' },
  field_not_found: { status: 404, title: 'Field not found' },
  field_type_not_found: { status: 404, title: 'Field type not found' },
  field_limit_reached: { status: 409, title: 'Field limit reached' },
  single_field_exists: { status: 409, title: 'Field type allows one field' },
  field_value_too_large: { status: 413, title: 'Field value too large' },
  field_type_retired: { status: 500, title: 'Field type retired' },

  // Photos (PRODUCT §2)
  photo_not_found: { status: 404, title: 'Photo not found' },
  photo_limit: { status: 409, title: 'Photo limit reached' },
  photo_too_large: { status: 413, title: 'Photo too large' },
  // Another media type than the four accepted: the same code a client handles, with 415 (RFC 9110 §15.5.16).
  photo_not_image: { status: 415, title: 'Photo format not accepted', code: 'photo_unreadable' },
  photo_unreadable: { status: 422, title: 'Photo unreadable' },

  // Profiles and cards
  profile_not_found: { status: 404, title: 'Profile not found' },
  exposure_not_found: { status: 404, title: 'Exposure not found' },
  profile_limit: { status: 409, title: 'Profile limit reached' },
  profile_name_taken: { status: 409, title: 'Profile name taken' },
  public_profile_exists: { status: 409, title: 'Public profile exists' },
  profile_in_use: { status: 409, title: 'Profile in use' },

  // Subscriptions, contacts, annotations, share links
  cannot_subscribe_to_self: { status: 422, title: 'Cannot subscribe to yourself' },
  contact_not_active: { status: 403, title: 'Contact not active' },
  subscription_not_found: { status: 404, title: 'Subscription not found' },
  contact_not_found: { status: 404, title: 'Contact not found' },
  annotation_not_found: { status: 404, title: 'Annotation not found' },
  block_not_found: { status: 404, title: 'Block not found' },
  share_link_not_found: { status: 404, title: 'Share link not found' },
  already_subscribed: { status: 409, title: 'Already subscribed' },
  contact_limit: { status: 409, title: 'Contact limit reached' },
  share_link_gone: { status: 410, title: 'Share link gone' },
  subscription_request_limit: { status: 429, title: 'Too many subscription requests' },

  // Keys (PRODUCT §7): key material the server stores and never reads
  invalid_key_bundle: { status: 400, title: 'Invalid key bundle' },
  invalid_key_share: { status: 400, title: 'Invalid key share' },
  key_bundle_not_found: { status: 404, title: 'Key bundle not found' },
  key_share_not_found: { status: 404, title: 'Key share not found' },

  // Address books (PRODUCT §9): address-book passwords and HTTP Basic sign-in under /dav/
  dav_unauthorized: { status: 401, title: 'Address-book sign-in required' },
  dav_token_not_found: { status: 404, title: 'Address-book password not found' },
  dav_token_limit: { status: 409, title: 'Address-book password limit reached' },
  setup_link_not_found: { status: 404, title: 'Setup link not found' },
  // Used, expired, withdrawn or unknown: one answer, so a guess learns nothing.
  setup_link_gone: { status: 410, title: 'Setup link gone' },

  // The account lifecycle (PRODUCT §8)
  account_deleted: { status: 403, title: 'Account deleted' },
  account_not_deleted: { status: 409, title: 'Account not deleted' },
  // An operator's lock (decision 090): every authenticated request, login, renewal, recovery and join.
  account_locked: { status: 403, title: 'Account locked' },
  account_not_locked: { status: 409, title: 'Account not locked' },
  // The same code at another status: a contact's card is gone while its owner's account is deleted.
  contact_account_deleted: { status: 410, title: 'Account deleted', code: 'account_deleted' },
  // A contact whose account an operator locked: gone for now, without saying why.
  contact_account_unavailable: { status: 410, title: 'Account unavailable', code: 'account_unavailable' },
  // Across regions (PRODUCT §10, decision 352).
  unknown_region: { status: 404, title: 'Unknown region' },
  region_unavailable: { status: 503, title: 'Region unavailable' },
  region_signature_required: { status: 401, title: 'Region signature required' },
  region_signature_invalid: { status: 401, title: 'Region signature invalid' },
  region_request_replayed: { status: 401, title: 'Region request replayed' },
  region_subject_mismatch: { status: 403, title: 'Not between these regions' },
} as const satisfies Record<string, { status: number; title: string; challenge?: string; code?: string }>;

export type RefusalCode = keyof typeof REFUSALS;

/**
 * The refusals a route names in `config.refusals`, from which the OpenAPI plugin writes its 4xx
 * responses: a code, or a code with a note on when it is answered.
 */
export type RouteRefusal = RefusalCode | readonly [RefusalCode, string];

/** The code a refusal answers with (an entry may name another) and its status and title. */
export function refusalEntry(name: RefusalCode): { code: string; status: number; title: string } {
  const entry: { status: number; title: string; code?: string } = REFUSALS[name];
  return { code: entry.code ?? name, status: entry.status, title: entry.title };
}
