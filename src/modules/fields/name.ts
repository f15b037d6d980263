import type { FieldError } from '../../platform/errors.js';
import { cleanText } from '../../platform/text.js';
import type { FieldTypeDefinition } from './types.js';

const PARTS = ['prefix', 'given', 'middle', 'family', 'suffix'] as const;
type NamePart = (typeof PARTS)[number];
const MAX_PART = 100;

const part = (description: string) => ({ type: 'string', maxLength: MAX_PART, description });

/**
 * A structured personal name (the components of vCard N, RFC 6350 §6.2.2). Parts are kept as
 * written; no part is required on its own, but a name needs a given or a family name (one of
 * them is enough: many people have a single name).
 */
export const nameType: FieldTypeDefinition = {
  key: 'name',
  label: 'Name',
  description: 'Full name in parts: prefix, given, middle, family, suffix. A given or a family name is required.',
  multiple: false,
  country: 'none',
  suggestedLabels: [],
  valueSchema: {
    type: 'object',
    properties: {
      prefix: part('Honorific before the name (Dr., Ms.)'),
      given: part('Given (first) name'),
      middle: part('Middle name(s)'),
      family: part('Family name(s)'),
      suffix: part('Honorific after the name (Jr., PhD)'),
    },
    additionalProperties: false,
    minProperties: 1,
    examples: [{ given: 'Ada', family: 'Lovelace' }, { prefix: 'Dr.', given: 'José', middle: 'María', family: 'García Márquez' }],
  },
  validate(value) {
    const input = value as Partial<Record<NamePart, string>>;
    const errors: FieldError[] = [];
    const out: Partial<Record<NamePart, string>> = {};
    for (const key of PARTS) {
      if (input[key] === undefined) continue;
      const result = cleanText(input[key], { path: `/value/${key}`, max: MAX_PART });
      if (!result.ok) errors.push(result.error);
      else if (result.text) out[key] = result.text;
    }
    if (!errors.length && !out.given && !out.family) {
      errors.push({ path: '/value/given', code: 'name_incomplete', message: 'a name needs a given or a family name' });
    }
    if (errors.length) return { ok: false, errors };
    const formatted = PARTS.map((key) => out[key]).filter(Boolean).join(' ');
    return { ok: true, value: out, details: { formatted } };
  },
};

/** An organisation and, optionally, the unit within it (vCard ORG, RFC 6350 §6.6.4). */
export const organizationType: FieldTypeDefinition = {
  key: 'organization',
  label: 'Organization',
  description: 'Company or organisation, with an optional department.',
  multiple: true,
  country: 'none',
  suggestedLabels: ['work'],
  valueSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 200 },
      unit: { type: 'string', maxLength: 200, description: 'Department or team' },
    },
    required: ['name'],
    additionalProperties: false,
    examples: [{ name: 'Example Corp.', unit: 'Research' }],
  },
  validate(value) {
    const input = value as { name: string; unit?: string };
    const name = cleanText(input.name, { path: '/value/name', max: 200 });
    const unit = input.unit === undefined ? undefined : cleanText(input.unit, { path: '/value/unit', max: 200 });
    const errors: FieldError[] = [];
    if (!name.ok) errors.push(name.error);
    else if (!name.text) errors.push({ path: '/value/name', code: 'text_empty', message: 'needs visible characters' });
    if (unit && !unit.ok) errors.push(unit.error);
    if (errors.length || !name.ok) return { ok: false, errors };
    const out: { name: string; unit?: string } = { name: name.text };
    if (unit?.ok && unit.text) out.unit = unit.text;
    return { ok: true, value: out, details: { formatted: out.unit ? `${out.name}, ${out.unit}` : out.name } };
  },
};
