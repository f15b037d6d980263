import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { POSTCODE_REGEXES } from 'postcode-validator/lib/cjs/postcode-regexes.js';
import { projectRoot } from '../../platform/paths.js';
import { COUNTRY_CODES, countryName } from '../../platform/countries.js';

/** The parts of a postal address, named after libaddressinput's address fields. */
export const ADDRESS_PARTS = ['street_lines', 'dependent_locality', 'locality', 'region', 'postal_code', 'sorting_code'] as const;
export type AddressPart = (typeof ADDRESS_PARTS)[number];

/** libaddressinput format letters (%A, %C, …) to our part names; %N and %O are not address parts. */
const LETTERS: Record<string, AddressPart> = { A: 'street_lines', D: 'dependent_locality', C: 'locality', S: 'region', Z: 'postal_code', X: 'sorting_code' };

interface RawRule {
  fmt: string;
  lfmt?: string;
  require?: string;
  upper?: string;
  zip?: string;
  zipex?: string;
  zip_name_type?: string;
  state_name_type?: string;
  locality_name_type?: string;
  sublocality_name_type?: string;
}

export interface AddressCountryRule {
  name: string;
  /** false: the country has no rules of its own and the default applies. */
  specific: boolean;
  /** Lines of an address in this country, each the parts on that line in order. */
  layout: AddressPart[][];
  /** The layout for Latin script where the national one differs (CN, JP, KR, …). */
  latin_layout?: AddressPart[][];
  required: AddressPart[];
  /** Parts the post wants in capitals when printed. */
  uppercase: AddressPart[];
  /** null: the country has no postal codes. pattern (ECMA-262) applies to the normalised code. */
  postal_code: { required: boolean; pattern: string | null; examples: string[]; label: string } | null;
  labels: { region: string; locality: string; dependent_locality: string };
}

const NAME_LABELS: Record<string, string> = {
  area: 'Area', county: 'County', department: 'Department', district: 'District', do_si: 'Province', emirate: 'Emirate',
  governorate: 'Governorate', island: 'Island', oblast: 'Oblast', parish: 'Parish', prefecture: 'Prefecture', province: 'Province',
  region: 'Region', state: 'State', city: 'City', post_town: 'Post town', suburb: 'Suburb', neighborhood: 'Neighbourhood',
  village_township: 'Village / township', townland: 'Townland', postal: 'Postal code', zip: 'ZIP code', pin: 'PIN code',
  eircode: 'Eircode', postcode: 'Postcode',
};
const label = (type: string | undefined, fallback: string) => NAME_LABELS[type ?? fallback] ?? NAME_LABELS[fallback] as string;

function layoutOf(fmt: string): AddressPart[][] {
  return fmt
    .split('%n')
    .map((line) => [...new Set([...line.matchAll(/%([A-Z])/g)].map((m) => LETTERS[m[1] as string]).filter((p): p is AddressPart => !!p))])
    .filter((line) => line.length > 0);
}

const partsOf = (letters: string | undefined) => [...new Set([...(letters ?? '')].map((l) => LETTERS[l]).filter((p): p is AddressPart => !!p))];

function buildRule(code: string, raw: RawRule, specific: boolean): { rule: AddressCountryRule; regex?: RegExp } {
  const layout = layoutOf(raw.fmt);
  const hasPostalCode = layout.some((line) => line.includes('postal_code'));
  const required = partsOf(raw.require);
  // Our own regex only where postcode-validator has none or is out of date (see the data file).
  const regex = raw.zip ? new RegExp(raw.zip) : POSTCODE_REGEXES.has(code) ? new RegExp((POSTCODE_REGEXES.get(code) as RegExp).source) : undefined;
  const rule: AddressCountryRule = {
    name: countryName(code),
    specific,
    layout,
    ...(raw.lfmt ? { latin_layout: layoutOf(raw.lfmt) } : {}),
    required,
    uppercase: partsOf(raw.upper),
    postal_code: hasPostalCode
      ? { required: required.includes('postal_code'), pattern: regex?.source ?? null, examples: raw.zipex ? raw.zipex.split(',') : [], label: label(raw.zip_name_type, 'postal') }
      : null,
    labels: {
      region: label(raw.state_name_type, 'province'),
      locality: label(raw.locality_name_type, 'city'),
      dependent_locality: label(raw.sublocality_name_type, 'suburb'),
    },
  };
  return { rule, regex: hasPostalCode ? regex : undefined };
}

function load(): Map<string, { rule: AddressCountryRule; regex?: RegExp }> {
  const data = JSON.parse(readFileSync(join(projectRoot, 'data', 'address-rules.json'), 'utf8')) as Record<string, RawRule>;
  const fallback = data._default as RawRule;
  const rules = new Map<string, { rule: AddressCountryRule; regex?: RegExp }>();
  for (const code of COUNTRY_CODES) {
    const own = data[code];
    // As in libaddressinput, what a country does not say it inherits from the default (ZZ).
    rules.set(code, buildRule(code, own ? { require: fallback.require, ...own } : fallback, own !== undefined));
  }
  return rules;
}

// Read on first use, not at start: only address fields and the catalog need them.
let rules: ReturnType<typeof load> | undefined;
const RULES = () => (rules ??= load());

/** Rules for an ISO country code (every code has one: its own or the default). */
export function addressRuleFor(country: string): { rule: AddressCountryRule; regex?: RegExp } {
  return RULES().get(country) ?? buildRule(country, { fmt: '%N%n%O%n%A%n%C%n%S %Z', require: 'AC' }, false);
}

export function addressCountryRules(): Record<string, AddressCountryRule> {
  return Object.fromEntries([...RULES()].map(([code, { rule }]) => [code, rule]));
}
