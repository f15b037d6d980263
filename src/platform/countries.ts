// The package's main entry registers the country names of all 78 languages it ships (about
// 2 MB of heap for the process's life); we only ever name countries in English, so we take the
// bare library and register English alone.
import countries from 'i18n-iso-countries/index.js';
import en from 'i18n-iso-countries/langs/en.json' with { type: 'json' };

countries.registerLocale(en);

/** ISO 3166-1 alpha-2 codes from i18n-iso-countries, sorted. */
export const COUNTRY_CODES: readonly string[] = Object.keys(countries.getAlpha2Codes()).sort();

const KNOWN = new Set(COUNTRY_CODES);

/** Is this an assigned ISO 3166-1 alpha-2 code (upper case)? "UK" and "EU" are not. */
export function isCountryCode(code: string): boolean {
  return KNOWN.has(code);
}

/** English short name, for messages and the catalog. */
export function countryName(code: string): string {
  return countries.getName(code, 'en') ?? code;
}

/** i18n-iso-countries' isValid: an ISO 3166-1 alpha-2, alpha-3 or numeric code. */
export const isValidCountry = (code: string): boolean => countries.isValid(code);
