// Refusals in words (one place): from a problem's `code`, and for a validation failure from each
// `errors[]` entry's pointer and code, one plain sentence, placed next to the box it concerns.
// The server's `detail` and validator messages are for developers and are never shown.
// Loaded the first time something fails (core/sentences.ts), so it is not in the first download.
import { isProblem, VidNetworkError } from '../../../client/src/index.js';
import { LOCKED, OFFLINE } from './plain-words.js';
import type { BoxWords, Words } from './plain-words.js';

export { LOCKED, OFFLINE };
export type { BoxWords, Words };

/** Refusal codes, as a person reads them. A code missing here falls back on its status. */
const CODES: Record<string, string> = {
  version_mismatch: 'This changed on another device meanwhile. Have a look and try again.',
  precondition_required: 'This changed on another device meanwhile. Have a look and try again.',
  concurrent_change: 'Something this needs changed meanwhile. Try again.',
  idempotency_request_in_progress: 'That is still being done. Give it a moment.',
  rate_limited: 'Too many tries in a short time. Wait a minute, then try again.',
  too_many_attempts: 'Too many tries. Wait a while, then try again.',
  too_many_failed_authentications: 'Too many failed sign-ins. Wait a while, then try again.',
  quota_exceeded: 'This account has used up this month’s requests. It works again next month.',
  overloaded: 'The service is busy right now. Try again in a moment.',
  shutting_down: 'The service is restarting. Try again in a moment.',
  database_unavailable: 'The service is starting up. Try again in a moment.',
  internal_error: 'Something went wrong on our side. Try again in a moment.',
  payload_too_large: 'That is more than the service accepts at once.',
  unauthenticated: 'You are signed out. Sign in again.',
  invalid_token: 'You are signed out. Sign in again.',
  step_up_required: 'Confirm with your passkey to do this.',
  ephemeral_session: 'This device is signed in for now only. Do this on a device you keep.',
  account_locked: LOCKED,
  account_deleted: 'Your account is deleted. Restore it first.',
  account_not_deleted: 'Your account is active.',
  username_invalid: 'That username cannot be used.',
  username_reserved: 'That username is reserved.',
  username_confusable: 'That username looks too much like one that is taken.',
  username_taken: 'That username is taken.',
  ceremony_invalid: 'That took too long. Try again.',
  ceremony_mismatch: 'That took too long. Try again.',
  invalid_attestation: 'The passkey could not be checked. Try again, or use another one.',
  invalid_assertion: 'The passkey could not be checked. Try again.',
  passkey_not_recognized: 'This passkey does not belong to an account here.',
  passkey_counter_regressed: 'This passkey was refused because it may have been copied. Use another one.',
  passkey_in_use: 'This passkey is signing in elsewhere right now. Try again.',
  credential_exists: 'This passkey is already registered.',
  last_method: 'This is your only passkey. Add another before removing it.',
  method_not_found: 'That passkey is gone already.',
  totp_not_found: 'That authenticator app is gone already.',
  totp_already_active: 'That authenticator app is set up already.',
  totp_code_invalid: 'That code didn’t work. Type the code your app shows now.',
  recovery_refused: 'That did not work. Check the username, the recovery key and the code.',
  recovery_key_not_found: 'There is no recovery key yet.',
  join_code_invalid: 'That code didn’t work: check the digits, or ask your other device for a new code.',
  join_attempt_expired: 'That code has expired. Ask your other device for a new one.',
  join_already_finished: 'That code was used already. Ask your other device for a new one.',
  invalid_transition: 'That code was used already. Ask your other device for a new one.',
  join_denied: 'Your other device said no.',
  JOIN_NOT_APPROVED: 'Your other device has not approved this yet.',
  join_key_mismatch: 'Start again on this device.',
  join_attempt_not_found: 'That request is gone. Start again.',
  join_code_not_found: 'There is no code to show. Make a new one.',
  factor_invalid: 'That did not work. Check what you typed.',
  account_not_found: 'There is no account with that username.',
  field_not_found: 'That detail is gone already.',
  field_limit_reached: 'You have as many details as an account can hold. Remove one first.',
  photo_unreadable: 'This picture cannot be used. Pick a JPEG, PNG, WebP or AVIF photo at least 32 pixels wide.',
  photo_too_large: 'This picture is too large. Pick one under 10 MB and 40 megapixels.',
  photo_limit: 'You have as many photos as an account can keep. Remove one first.',
  photo_not_found: 'That photo was removed meanwhile.',
  single_field_exists: 'You can have only one of these. Edit the one you have.',
  field_value_too_large: 'That is longer than a detail can hold.',
  unknown_field_type: 'That kind of detail is not offered any more.',
  invalid_country: 'Choose a country from the list.',
  country_required: 'Choose a country.',
  country_not_applicable: 'This kind of detail has no country.',
  profile_not_found: 'That profile is gone already.',
  profile_limit: 'You have as many profiles as an account can hold.',
  profile_name_taken: 'You have a profile with that name already.',
  public_profile_exists: 'Another profile is public already.',
  profile_in_use: 'People see this profile. Move them to another one first.',
  cannot_subscribe_to_self: 'That is you.',
  already_subscribed: 'You asked this person already.',
  contact_limit: 'You have as many contacts as an account can hold.',
  contact_not_active: 'This person does not share a card with you.',
  contact_not_found: 'That contact is gone.',
  subscription_not_found: 'That request is gone.',
  share_link_not_found: 'This link does not work.',
  share_link_gone: 'This link has been used up or turned off.',
  subscription_request_limit: 'You have asked too many people at once. Wait for some to answer.',
  block_not_found: 'That person is not blocked.',
  dav_token_limit: 'You have 10 phones set up, the most there can be. Revoke one you no longer use first.',
  dav_token_not_found: 'That phone was revoked already.',
  setup_link_not_found: 'That setup link is gone.',
  setup_link_gone: 'This setup link was used already or has expired. Make a new one on the device where you are signed in.',
  // Across regions (PRODUCT §10). The signature refusals are between two servers; a person
  // meets them only if the service is misconfigured, and then it is the service's fault.
  unknown_region: 'There is no such region. Use @eu or @us after the username.',
  region_unavailable: 'Their region cannot be reached right now. Nothing was sent: try again in a few minutes.',
  region_signature_required: 'Something went wrong on our side. Try again in a moment.',
  region_signature_invalid: 'Something went wrong on our side. Try again in a moment.',
  region_request_replayed: 'Something went wrong on our side. Try again in a moment.',
  region_subject_mismatch: 'Something went wrong on our side. Try again in a moment.',
};

/** Sentences for one box, by the failure's code (validator keywords and the field rules). */
function boxSentence(code: string, box: BoxWords): string | undefined {
  const name = box.name ?? 'this';
  switch (code) {
    case 'required':
    case 'address_part_required':
      return box.name ? `Enter the ${box.name}${box.country ? `: addresses in ${box.country} need one` : ''}.` : 'This is needed.';
    case 'minLength':
    case 'text_empty':
      return box.name ? `Enter the ${box.name}.` : 'Enter something here.';
    case 'maxLength':
    case 'text_too_long':
      return box.maxLength ? `Use at most ${box.maxLength} characters.` : 'That is too long.';
    case 'postal_code_pattern':
      return `Check the ${box.name ?? 'postal code'}${box.example ? `: ${box.country ? `in ${box.country} ` : ''}it looks like ${box.example}` : ''}.`;
    case 'phone_invalid':
      return box.country ? `That is not a phone number in ${box.country}. Check it, or start with + and the country code.` : 'That is not a phone number. Check it, or start with + and the country code.';
    case 'text_unsafe_characters':
      return 'Leave out invisible characters such as control or direction marks.';
    case 'phone_not_a_number':
      return 'That is not a phone number.';
    case 'country_required':
    case 'invalid_country':
      return 'Choose a country.';
    case 'email_missing_at':
      return 'An e-mail address looks like name@example.com.';
    case 'email_local_part_invalid':
      return 'The part before the @ has characters an e-mail address cannot have.';
    case 'email_local_part_too_long':
    case 'email_too_long':
      return 'That e-mail address is too long.';
    case 'email_domain_invalid':
      return 'The part after the @ is not a valid domain.';
    case 'url_invalid':
      return 'That is not a web address.';
    case 'url_scheme_not_allowed':
      return 'Use a link that starts with https://.';
    case 'url_credentials_not_allowed':
      return 'Leave the user name and password out of the link.';
    case 'url_host_invalid':
      return 'The site in that link is not valid.';
    case 'social_platform_unknown':
      return 'Choose a network from the list.';
    case 'social_handle_invalid':
      return `That is not a valid name on this network${box.example ? `, such as ${box.example}` : ''}.`;
    case 'time_zone_unknown':
      return 'Choose a time zone from the list.';
    case 'language_tag_invalid':
    case 'language_unknown':
      return 'Choose a language from the list.';
    case 'birthday_invalid_date':
      return 'That date does not exist.';
    case 'birthday_too_old':
      return 'That date is too long ago.';
    case 'name_incomplete':
      return 'Enter a given name or a family name.';
    case 'field_value_too_large':
      return 'That is longer than a detail can hold.';
    case 'enum':
      return 'Choose one of the options.';
    case 'minimum':
      return 'That number is too small.';
    case 'maximum':
      return 'That number is too large.';
    case 'maxItems':
      return 'That is too many.';
    case 'pattern':
    case 'format':
      return `Check the ${name === 'this' ? 'value' : name}.`;
    default:
      return undefined;
  }
}

/** Keywords that only say "one of the alternatives failed": their siblings say which. */
const UMBRELLA = new Set(['anyOf', 'oneOf', 'type', 'const', 'not', 'if']);

/**
 * The words for a failure. `boxes` names the form's boxes by pointer; a problem about a box it
 * does not name is said for the form as a whole, once.
 */
export function words(error: unknown, boxes: Record<string, BoxWords> = {}): Words {
  if (error instanceof VidNetworkError || (error instanceof TypeError && !isProblem(error))) return { message: OFFLINE, boxes: {} };
  if (!isProblem(error)) return { message: 'Something went wrong. Try again.', boxes: {} };
  const byBox: Record<string, string> = {};
  let message: string | undefined;
  const failures = error.errors ?? [];
  if (failures.length) {
    // The most telling failure per pointer: never an umbrella keyword when a sibling says more.
    const chosen = new Map<string, string>();
    for (const { path, code } of failures) {
      const pointer = path === '' ? '/' : path;
      const held = chosen.get(pointer);
      if (held === undefined || (UMBRELLA.has(held) && !UMBRELLA.has(code))) chosen.set(pointer, code);
    }
    for (const [pointer, code] of chosen) {
      const box = boxes[pointer] ?? boxes[pointer.replace(/\/\d+$/, '')];
      const target = boxes[pointer] ? pointer : pointer.replace(/\/\d+$/, '');
      const sentence = boxSentence(code, box ?? {}) ?? CODES[code];
      if (box && sentence) byBox[target] ??= sentence;
      else message ??= sentence ?? 'Something in the form is not accepted. Check it and try again.';
    }
    if (Object.keys(byBox).length || message) return { message, boxes: byBox };
  }
  // A refusal about a box without errors[] (a country refused as a whole).
  if (error.code === 'invalid_country' || error.code === 'country_required') {
    if (boxes['/country']) return { boxes: { '/country': CODES[error.code]! } };
  }
  return { message: CODES[error.code] ?? byStatus(error.status), boxes: {} };
}

function byStatus(status: number): string {
  if (status >= 500) return 'Something went wrong on our side. Try again in a moment.';
  if (status === 404 || status === 410) return 'That is not there any more.';
  if (status === 403) return 'That is not allowed.';
  if (status === 409) return 'That clashes with a change made meanwhile. Have a look and try again.';
  return 'That did not work. Check it and try again.';
}

/** One sentence for a failure that concerns no box. */
export const say = (error: unknown): string => {
  const { message, boxes } = words(error);
  return message ?? Object.values(boxes)[0] ?? 'Something went wrong. Try again.';
};

/** Every sentence this module can say (a test checks none reads like a validator or an RFC). */
export function allSentences(): string[] {
  const codes = ['required', 'address_part_required', 'minLength', 'text_empty', 'maxLength', 'postal_code_pattern', 'phone_invalid', 'phone_not_a_number', 'country_required', 'invalid_country', 'email_missing_at', 'email_local_part_invalid', 'email_local_part_too_long', 'email_too_long', 'email_domain_invalid', 'url_invalid', 'url_scheme_not_allowed', 'url_credentials_not_allowed', 'url_host_invalid', 'social_platform_unknown', 'social_handle_invalid', 'time_zone_unknown', 'language_tag_invalid', 'language_unknown', 'birthday_invalid_date', 'birthday_too_old', 'name_incomplete', 'field_value_too_large', 'enum', 'minimum', 'maximum', 'maxItems', 'pattern', 'format'];
  const boxes: BoxWords[] = [{}, { name: 'postcode', maxLength: 20, country: 'United Kingdom', example: 'SW1A 1AA' }];
  return [OFFLINE, LOCKED, ...Object.values(CODES), ...[500, 404, 403, 409, 400].map(byStatus), ...codes.flatMap((c) => boxes.map((b) => boxSentence(c, b)!))];
}
