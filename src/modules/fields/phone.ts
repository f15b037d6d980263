import { createRequire } from 'node:module';
import type { CountryCode, Examples } from 'libphonenumber-js/max';
import { countryName, isCountryCode } from '../../platform/countries.js';
import { invalid } from './types.js';
import type { FieldTypeDefinition } from './types.js';

/**
 * Phone numbers, read with Google's libphonenumber metadata (the `max` set, which knows number
 * types) and stored in E.164 (ITU-T E.164: `+`, country calling code, national number, at most
 * 15 digits). An extension, when typed, follows as `;ext=` (RFC 3966 §5.1.5).
 */
// libphonenumber-js with its `max` metadata is about 2 MB of heap; loaded on the first phone
// number (or catalog build) rather than at start. Its CommonJS build, so loading stays synchronous.
const require = createRequire(import.meta.url);
interface PhoneLib {
  lib: typeof import('libphonenumber-js/max');
  mobileExamples: Examples;
}
let loaded: PhoneLib | undefined;
const phoneLib = (): PhoneLib => (loaded ??= { lib: require('libphonenumber-js/max'), mobileExamples: require('libphonenumber-js/mobile/examples') });

const LENGTH_ERRORS: Record<string, [string, string]> = {
  NOT_A_NUMBER: ['phone_not_a_number', 'not a phone number'],
  TOO_SHORT: ['phone_too_short', 'too short for a phone number of this country'],
  TOO_LONG: ['phone_too_long', 'too long for a phone number of this country'],
  INVALID_LENGTH: ['phone_invalid_length', 'no phone number of this country has this many digits'],
};

export interface PhoneCountryRule {
  name: string;
  calling_code: string;
  example: string | null;
}

function countryRules(): Record<string, PhoneCountryRule> {
  const { lib: { getCountries, getCountryCallingCode, getExampleNumber }, mobileExamples } = phoneLib();
  const rules: Record<string, PhoneCountryRule> = {};
  for (const country of getCountries()) {
    if (!isCountryCode(country)) continue; // e.g. AC (Ascension) shares SH's ISO code
    rules[country] = {
      name: countryName(country),
      calling_code: getCountryCallingCode(country),
      example: getExampleNumber(country, mobileExamples)?.formatInternational() ?? null,
    };
  }
  return rules;
}

export const phoneType: FieldTypeDefinition = {
  key: 'phone',
  label: 'Phone',
  description:
    'A phone number, in international form (+49 30 1234567) or national form (030 1234567) read with the field\'s country ' +
    '(default: the account\'s default_country). Stored in E.164, optionally with ";ext=" and digits; the number\'s own ' +
    'country becomes the field\'s country. details.line_type tells mobile from fixed line where the numbering plan knows.',
  multiple: true,
  country: 'optional',
  suggestedLabels: ['mobile', 'home', 'work'],
  valueSchema: { type: 'string', minLength: 1, maxLength: 64, examples: ['+49 30 1234567', '(415) 555-2671', '+44 20 7946 0958 ext. 12'] },
  countries: countryRules,
  validate(value, ctx) {
    const lib = phoneLib().lib;
    const text = (value as string).normalize('NFKC').trim();
    const defaultCountry: CountryCode | undefined = ctx.country && lib.isSupportedCountry(ctx.country) ? ctx.country : undefined;
    const options = defaultCountry ? { defaultCountry } : {};
    const lengthProblem = lib.validatePhoneNumberLength(text, options);
    if (lengthProblem === 'INVALID_COUNTRY') {
      if (text.startsWith('+')) return invalid('/value', 'phone_invalid', 'no country has this calling code');
      return ctx.country
        ? invalid('/value', 'phone_invalid', `phone numbers of ${countryName(ctx.country)} are not known; type the number with + and the calling code`)
        : invalid('/country', 'country_required', 'a number in national form needs a country; or type it with + and the calling code');
    }
    if (lengthProblem) {
      const [code, message] = LENGTH_ERRORS[lengthProblem] ?? ['phone_invalid', 'not a valid phone number'];
      return invalid('/value', code, message);
    }
    const number = lib.parsePhoneNumberFromString(text, { ...options, extract: false });
    if (!number) return invalid('/value', 'phone_not_a_number', 'not a phone number');
    if (!number.isValid()) {
      const where = number.country ?? defaultCountry;
      return invalid('/value', 'phone_invalid', where ? `not a valid phone number of ${countryName(where)}` : 'not a valid phone number');
    }
    const type = number.getType();
    return {
      ok: true,
      value: number.ext ? `${number.number};ext=${number.ext}` : number.number,
      country: number.country ?? null,
      details: {
        ...(type ? { line_type: type.toLowerCase() } : {}),
        national: number.formatNational(),
        international: number.formatInternational(),
        uri: number.getURI(),
      },
    };
  },
};
