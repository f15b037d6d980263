import type { FieldError } from '../../platform/errors.js';
import { ADDRESS_PARTS, addressCountryRules, addressRuleFor } from './address-rules.js';
import type { AddressCountryRule, AddressPart } from './address-rules.js';
import { normalizePostalCode } from './postal-code.js';
import { cleanText } from '../../platform/text.js';
import type { FieldTypeDefinition } from './types.js';

type Address = Partial<Record<Exclude<AddressPart, 'street_lines'>, string>> & { street_lines?: string[] };

const MAX_LENGTH: Record<AddressPart, number> = { street_lines: 200, dependent_locality: 100, locality: 100, region: 100, postal_code: 20, sorting_code: 20 };

function partLabel(rule: AddressCountryRule, part: AddressPart): string {
  if (part === 'street_lines') return 'a street address';
  if (part === 'postal_code') return `a ${rule.postal_code?.label ?? 'postal code'}`;
  if (part === 'sorting_code') return 'a sorting code';
  return `a ${rule.labels[part].toLowerCase()}`;
}

/** The address as the post of its country prints it (layout, capitals), for display. */
function format(address: Address, rule: AddressCountryRule): string {
  const text = (part: AddressPart) => {
    const value = part === 'street_lines' ? (address.street_lines ?? []).join('\n') : address[part] ?? '';
    return rule.uppercase.includes(part) ? value.toUpperCase() : value;
  };
  const used = new Set(rule.layout.flat());
  const lines = rule.layout.map((line) => line.map(text).filter(Boolean).join(' '));
  // Parts the country's layout has no place for are still shown, not silently dropped.
  for (const part of ADDRESS_PARTS) if (!used.has(part)) lines.push(text(part));
  lines.push(rule.name.toUpperCase());
  return lines.filter(Boolean).join('\n');
}

/**
 * Postal addresses with per-country rules: required parts, layout, postal-code pattern (see
 * address-rules.ts and data/address-rules.json). The country is the field's `country`.
 */
export const postalAddressType: FieldTypeDefinition = {
  key: 'postal_address',
  label: 'Postal address',
  description:
    'A postal address. Which parts are required, how they are laid out and the postal-code pattern depend on the field\'s ' +
    'country (default: the account\'s default_country); see `countries`. Postal codes are stored in the form the post ' +
    'prints them (upper case, national separator: "SW1A 1AA", "100-0001"); details.formatted is the printable address.',
  multiple: true,
  country: 'required',
  suggestedLabels: ['home', 'work', 'billing'],
  valueSchema: {
    type: 'object',
    properties: {
      street_lines: { type: 'array', items: { type: 'string', maxLength: MAX_LENGTH.street_lines }, minItems: 1, maxItems: 4, description: 'Street, house number, building, floor' },
      dependent_locality: { type: 'string', maxLength: MAX_LENGTH.dependent_locality, description: 'Suburb, neighbourhood or district inside the locality' },
      locality: { type: 'string', maxLength: MAX_LENGTH.locality, description: 'City, town or post town' },
      region: { type: 'string', maxLength: MAX_LENGTH.region, description: 'State, province, prefecture, …' },
      postal_code: { type: 'string', maxLength: MAX_LENGTH.postal_code },
      sorting_code: { type: 'string', maxLength: MAX_LENGTH.sorting_code, description: 'CEDEX and similar' },
    },
    additionalProperties: false,
    minProperties: 1,
    examples: [{ street_lines: ['1600 Amphitheatre Parkway'], locality: 'Mountain View', region: 'CA', postal_code: '94043' }],
  },
  countries: addressCountryRules,
  validate(value, ctx) {
    const country = ctx.country as string; // 'required': resolved before we are called
    const { rule, regex } = addressRuleFor(country);
    const input = value as Address;
    const errors: FieldError[] = [];
    const out: Address = {};
    const lines = (input.street_lines ?? []).map((line, i) => cleanText(line, { path: `/value/street_lines/${i}`, max: MAX_LENGTH.street_lines }));
    for (const line of lines) if (!line.ok) errors.push(line.error);
    const street = lines.flatMap((line) => (line.ok && line.text ? [line.text] : []));
    if (street.length) out.street_lines = street;
    for (const part of ADDRESS_PARTS) {
      if (part === 'street_lines' || input[part] === undefined) continue;
      const cleaned = cleanText(input[part], { path: `/value/${part}`, max: MAX_LENGTH[part] });
      if (!cleaned.ok) errors.push(cleaned.error);
      else if (cleaned.text) out[part] = part === 'postal_code' ? normalizePostalCode(cleaned.text, country) : cleaned.text;
    }
    for (const part of rule.required) {
      if (out[part] === undefined && !errors.some((e) => e.path.startsWith(`/value/${part}`))) errors.push({ path: `/value/${part}`, code: 'address_part_required', message: `${partLabel(rule, part)} is required for addresses in ${rule.name}` });
    }
    if (out.postal_code !== undefined && rule.postal_code && regex && !regex.test(out.postal_code)) {
      const example = rule.postal_code.examples[0];
      errors.push({
        path: '/value/postal_code',
        code: 'postal_code_pattern',
        message: `not a valid ${rule.postal_code.label.toLowerCase()} in ${rule.name}${example ? `, e.g. ${example}` : ''}`,
      });
    }
    if (errors.length) return { ok: false, errors };
    const ordered = Object.fromEntries(ADDRESS_PARTS.filter((p) => out[p] !== undefined).map((p) => [p, out[p]]));
    return { ok: true, value: ordered, details: { formatted: format(out, rule) } };
  },
};
