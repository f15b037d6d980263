import type { FieldError } from '../../platform/errors.js';

/** A JSON Schema (2020-12 dialect, as OpenAPI 3.1 uses) describing a field value as sent. */
export type JsonSchema = Record<string, unknown>;

/**
 * How a field type uses the field's `country`: `required` (the rules depend on it: postal
 * addresses), `optional` (it helps read the value: a phone number typed in national format),
 * `none` (sending one is refused).
 */
export type CountryUse = 'required' | 'optional' | 'none';

/** Facts derived from a value while normalising it; never typed by the person. */
export interface FieldDetails {
  /** Phone: what the numbering plan says the number is (mobile, fixed_line, …), when known. */
  line_type?: string;
  /** Phone: national and international formats, and the tel: URI (RFC 3966). */
  national?: string;
  international?: string;
  uri?: string;
  /** E-mail: the address with an ASCII (A-label) domain; absent when the local part is not ASCII. */
  ascii?: string;
  /** E-mail: true when the local part is not ASCII and delivery needs SMTPUTF8 (RFC 6531). */
  smtputf8?: boolean;
  /** Social: the profile URL. */
  url?: string;
  /** A one-line or multi-line rendering for display (names, birthdays, languages, addresses). */
  formatted?: string;
  /** Photo: the 64 px square as a data: URL, the sizes served, and a tag that changes with the photo. */
  thumbnail?: string;
  sizes?: number[];
  photo_tag?: string;
}

export interface ValidationContext {
  /** The resolved ISO 3166-1 alpha-2 country, upper case, if any. */
  country: string | undefined;
  /** Now, in milliseconds (from the injected clock): birthdays may not be in the future. */
  now: number;
}

export type ValueCheck =
  | {
      ok: true;
      value: unknown;
      details?: FieldDetails;
      /** Overrides the field's country (a phone number's own country). null: none known. */
      country?: string | null;
    }
  | { ok: false; errors: FieldError[] };

/**
 * One entry of the field catalog. `valueSchema` is published and also checks the shape first
 * (so the schema a client reads is the one the server applies); `validate` then applies the
 * rules a JSON Schema cannot say (numbering plans, calendars, per-country postal codes).
 */
export interface FieldTypeDefinition {
  key: string;
  label: string;
  description: string;
  multiple: boolean;
  country: CountryUse;
  suggestedLabels: string[];
  valueSchema: JsonSchema;
  /** Per-country rules, keyed by ISO 3166-1 alpha-2 code (phone, postal_address). */
  countries?: () => Record<string, unknown>;
  /** Pick-list values a form may offer (time zones). */
  values?: () => string[];
  /** Social platforms and their handle rules. */
  platforms?: () => unknown[];
  validate(value: unknown, ctx: ValidationContext): ValueCheck;
}

export function invalid(path: string, code: string, message: string): ValueCheck {
  return { ok: false, errors: [{ path, code, message }] };
}
