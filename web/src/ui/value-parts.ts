// The boxes of each field type, in words: what each part is called, which keyboard and autofill
// it wants, how long it may be (the server's own limits, from the type's value_schema). The
// catalogue's descriptions are written for developers and are never shown.
import type { Schemas } from '../../../client/src/api.js';

type FieldType = Schemas['FieldType'];
type AddressRule = Schemas['AddressCountryRule'];
export type AddressPart = AddressRule['layout'][number][number];

export interface Part {
  /** The value's member ('' for a value that is one string). */
  key: string;
  label: string;
  required: boolean;
  kind: 'text' | 'lines' | 'number' | 'choice' | 'longtext';
  /** The value's schema holds a number here, whatever box (a month picked by name) asks for it. */
  numeric?: boolean;
  maxLength?: number;
  min?: number;
  max?: number;
  choices?: { value: string; label: string }[];
  input?: { type?: string; inputMode?: string; autoComplete?: string; autoCapitalize?: string; spellcheck?: boolean };
  hint?: string;
}

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  enum?: string[];
  maxLength?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
}

/** What a type is for, in a line (the catalogue's own description is for developers). */
export const TYPE_HINTS: Record<string, string> = {
  name: 'Your name in parts, as it should appear on cards.',
  nickname: 'A name you like to be called by.',
  phone: 'Type it as you would dial it at home, or with + and the country code.',
  email: 'An address people can write to.',
  postal_address: 'Where post reaches you.',
  birthday: 'The year is up to you.',
  url: 'A web page about you, such as a blog or portfolio.',
  social: 'Where people can find you online.',
  organization: 'Where you work, and your team if you like.',
  job_title: 'What you do.',
  pronouns: 'How people should refer to you, such as she/her.',
  language: 'A language you speak.',
  time_zone: 'Where your day is, so people know when to reach you.',
  note: 'Anything else people should know.',
};

const SINGLE: Record<string, Omit<Part, 'key' | 'label' | 'required' | 'kind'> & { kind?: Part['kind'] }> = {
  phone: { input: { type: 'tel', inputMode: 'tel', autoComplete: 'tel' } },
  email: { input: { type: 'email', inputMode: 'email', autoComplete: 'email', autoCapitalize: 'none', spellcheck: false } },
  url: { input: { type: 'url', inputMode: 'url', autoComplete: 'url', autoCapitalize: 'none', spellcheck: false }, hint: 'Such as example.com/about' },
  nickname: { input: { autoComplete: 'nickname' } },
  job_title: { input: { autoComplete: 'organization-title' } },
  note: { kind: 'longtext' },
  pronouns: { input: { autoCapitalize: 'none' } },
};

const OBJECT_PARTS: Record<string, Record<string, { label: string; autoComplete?: string }>> = {
  name: {
    prefix: { label: 'Title', autoComplete: 'honorific-prefix' },
    given: { label: 'Given name', autoComplete: 'given-name' },
    middle: { label: 'Middle name', autoComplete: 'additional-name' },
    family: { label: 'Family name', autoComplete: 'family-name' },
    suffix: { label: 'Suffix', autoComplete: 'honorific-suffix' },
  },
  organization: { name: { label: 'Organization', autoComplete: 'organization' }, unit: { label: 'Department or team' } },
  social: { platform: { label: 'Network' }, handle: { label: 'Your name there', autoComplete: 'off' } },
  birthday: { day: { label: 'Day', autoComplete: 'bday-day' }, month: { label: 'Month', autoComplete: 'bday-month' }, year: { label: 'Year', autoComplete: 'bday-year' } },
};

const typeOf = (s: Schema) => (Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type);

function monthChoices(): { value: string; label: string }[] {
  const format = new Intl.DateTimeFormat(undefined, { month: 'long', timeZone: 'UTC' });
  return Array.from({ length: 12 }, (_, i) => ({ value: String(i + 1), label: format.format(Date.UTC(2000, i, 1)) }));
}

let languages: { value: string; label: string }[] | undefined;
/** Common languages by name (the value is the tag the server stores). */
function languageChoices(): { value: string; label: string }[] {
  if (languages) return languages;
  const tags = 'ar bn ca cs cy da de el en es et eu fa fi fil fr ga gl gu he hi hr hu hy id is it ja ka kk km kn ko lt lv mk ml mn mr ms mt my nb ne nl pa pl pt pt-BR ro ru si sk sl sq sr sv sw ta te th tl tr uk ur uz vi yue zh zh-Hant zu'.split(' ');
  const names = new Intl.DisplayNames(navigator.languages, { type: 'language' });
  const collator = new Intl.Collator(navigator.languages);
  return (languages = tags.map((tag) => ({ value: tag, label: names.of(tag) ?? tag })).sort((a, b) => collator.compare(a.label, b.label)));
}

/** The boxes of a type that is not a postal address. */
export function partsOf(type: FieldType): Part[] {
  const schema = type.value_schema as Schema;
  if (typeOf(schema) !== 'object' || !schema.properties) {
    const own = SINGLE[type.key] ?? {};
    const choices = type.key === 'time_zone' ? (type.values ?? []).map((v) => ({ value: v, label: v.replaceAll('_', ' ') }))
      : type.key === 'language' ? languageChoices() : undefined;
    return [{ key: '', label: type.label, required: true, kind: choices ? 'choice' : own.kind ?? 'text', maxLength: schema.maxLength, choices, input: own.input, hint: own.hint }];
  }
  const words = OBJECT_PARTS[type.key] ?? {};
  const order = type.key === 'birthday' ? ['day', 'month', 'year'] : Object.keys(schema.properties);
  return order.map((key) => {
    const s = schema.properties![key]!;
    const kind = typeOf(s);
    const choices = key === 'month' && type.key === 'birthday' ? monthChoices()
      : key === 'platform' ? (type.platforms ?? []).map((p) => ({ value: p.key, label: p.label }))
        : s.enum?.map((v) => ({ value: v, label: v }));
    return {
      key,
      label: words[key]?.label ?? key.replaceAll('_', ' ').replace(/^./, (c) => c.toUpperCase()),
      required: !!schema.required?.includes(key),
      kind: choices ? 'choice' : kind === 'integer' || kind === 'number' ? 'number' : kind === 'array' ? 'lines' : 'text',
      numeric: kind === 'integer' || kind === 'number',
      maxLength: s.maxLength ?? s.items?.maxLength,
      min: s.minimum,
      max: s.maximum,
      choices,
      input: { autoComplete: words[key]?.autoComplete, ...(kind === 'integer' ? { inputMode: 'numeric' } : {}) },
    } satisfies Part;
  });
}

const ADDRESS_AUTOCOMPLETE: Record<AddressPart, string> = {
  street_lines: 'street-address', dependent_locality: 'address-level3', locality: 'address-level2', region: 'address-level1', postal_code: 'postal-code', sorting_code: 'off',
};

/** The boxes of an address in one country, in the order its post writes them, required as it requires. */
export function addressParts(type: FieldType, rule: AddressRule): Part[] {
  const schema = type.value_schema as Schema;
  const label = (part: AddressPart): string => {
    switch (part) {
      case 'street_lines': return 'Street and number';
      case 'postal_code': return rule.postal_code?.label ?? 'Postal code';
      case 'sorting_code': return 'Sorting code';
      default: return rule.labels[part];
    }
  };
  return rule.layout.flat().filter((part) => part !== 'postal_code' || rule.postal_code).map((part) => {
    const s = schema.properties?.[part] ?? {};
    const upper = rule.uppercase.includes(part);
    return {
      key: part,
      label: label(part),
      required: rule.required.includes(part) || (part === 'postal_code' && !!rule.postal_code?.required),
      kind: part === 'street_lines' ? 'lines' : 'text',
      maxLength: s.maxLength ?? s.items?.maxLength,
      input: { autoComplete: ADDRESS_AUTOCOMPLETE[part], ...(upper ? { autoCapitalize: 'characters' } : {}) },
      hint: part === 'street_lines' ? 'One line each for the street, building or floor.' : part === 'postal_code' && rule.postal_code?.examples[0] ? `Such as ${rule.postal_code.examples[0]}` : undefined,
    } satisfies Part;
  });
}
