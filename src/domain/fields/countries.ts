import countries from 'i18n-iso-countries';

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
