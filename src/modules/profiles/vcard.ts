import { createHash } from 'node:crypto';
import { countryName } from '../../platform/countries.js';
import type { Card, CardField, VcardVersion } from './card.js';

/**
 * A card as a vCard: 4.0 (RFC 6350) by default, 3.0 (RFC 2426) for phones' address books,
 * which import 3.0 reliably and 4.0 poorly or not at all (STANDARDS.md, "vCard in real address
 * books"). Every field type maps to a property (docs/profiles.md has the table); standard
 * properties carry what matters, extensions what may be lost harmlessly.
 */
export type { VcardVersion };

export interface VcardOptions {
  version: VcardVersion;
  /** Stable per owner, so a re-import updates the contact instead of adding another. */
  uid: string;
}

interface Property {
  group?: string;
  name: string;
  params?: Array<[string, string]>;
  /** Already escaped (text) or verbatim (URIs, dates). */
  value: string;
}

const CRLF = '\r\n';
const MAX_OCTETS = 75;

/**
 * RFC 6350 §3.4: backslash, comma and line breaks in text values; semicolons only inside the
 * components of a structured value, where they separate (elsewhere escaping them is allowed but
 * some readers then keep the backslash).
 */
export function escapeText(text: string, structured = false): string {
  const escaped = text.replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/\r\n|\r|\n/g, '\\n');
  return structured ? escaped.replace(/;/g, '\\;') : escaped;
}

/** A structured value (N, ADR, ORG): components separated by unescaped semicolons. */
const components = (parts: ReadonlyArray<string | undefined>) => parts.map((part) => escapeText(part ?? '', true)).join(';');

/** Parameter values with anything but plain word characters are quoted (RFC 6350 §5); quotes cannot occur. */
function paramValue(value: string): string {
  const clean = value.replace(/"/g, "'").replace(/[\r\n]+/g, ' ');
  return /^[A-Za-z0-9._-]*$/.test(clean) ? clean : `"${clean}"`;
}

/**
 * RFC 6350 §3.2: lines longer than 75 octets are folded with CRLF and one space, never inside a
 * UTF-8 sequence (nor between the halves of a surrogate pair: we step by code point).
 */
export function fold(line: string): string {
  if (Buffer.byteLength(line, 'utf8') <= MAX_OCTETS) return line;
  const out: string[] = [];
  let current = '';
  let octets = 0;
  for (const char of line) {
    const size = Buffer.byteLength(char, 'utf8');
    // Continuation lines start with a space, which counts toward their 75 octets.
    const limit = out.length === 0 ? MAX_OCTETS : MAX_OCTETS - 1;
    if (octets + size > limit) {
      out.push(current);
      current = '';
      octets = 0;
    }
    current += char;
    octets += size;
  }
  out.push(current);
  return out.join(`${CRLF} `);
}

function serialise(property: Property): string {
  const params = (property.params ?? []).map(([name, value]) => `;${name}=${value}`).join('');
  return fold(`${property.group ? `${property.group}.` : ''}${property.name}${params}:${property.value}`);
}

/** A stable UID for an account: urn:uuid from a hash of its id (RFC 6350 §6.7.6, RFC 4122 §4.1.3 variant bits). */
export function uidFor(accountId: string): string {
  const bytes = createHash('sha256').update(`vid.vcard.uid:${accountId}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80; // version 8: a custom, name-derived UUID (RFC 9562 §5.8)
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const KNOWN_LABELS: Record<string, string> = { home: 'home', personal: 'home', private: 'home', work: 'work', office: 'work', business: 'work' };
const TEL_KINDS: Record<string, string> = { mobile: 'cell', cell: 'cell', fax: 'fax', pager: 'pager' };

type Value = Record<string, unknown>;
const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** Writes one card as one vCard (BEGIN…END, CRLF line ends). */
export function cardToVcard(card: Card, options: VcardOptions): string {
  const v3 = options.version === '3.0';
  const type = (...values: string[]) => (values.length ? [['TYPE', (v3 ? values.map((t) => t.toUpperCase()) : values).join(',')] as [string, string]] : []);
  const props: Property[] = [];
  let groups = 0;

  /** A label address books know becomes a TYPE; any other survives as an Apple label on a group (item1.X-ABLabel). */
  function labelled(property: Property, label: string | null, types: string[] = []): void {
    const known = label ? KNOWN_LABELS[label.toLowerCase()] : undefined;
    const all = [...new Set([...types, ...(known ? [known] : [])])];
    props.push({ ...property, params: [...type(...all), ...(property.params ?? [])] });
    if (label && !known && !TEL_KINDS[label.toLowerCase()]) {
      const group = `item${++groups}`;
      props[props.length - 1]!.group = group;
      props.push({ group, name: 'X-ABLabel', value: escapeText(label) });
    }
  }

  const nameField = card.fields.find((f) => f.type === 'name');
  const name = (nameField?.value ?? {}) as Value;
  const formattedName = card.owner.display_name || (nameField ? text(nameField.details.formatted) : '') || card.owner.username;

  for (const field of card.fields) write(field);

  function write(field: CardField): void {
    const value = field.value as Value;
    switch (field.type) {
      case 'name':
        return; // N and FN below
      case 'nickname':
        return labelled({ name: 'NICKNAME', value: escapeText(text(field.value)) }, null);
      case 'phone': {
        const kind = TEL_KINDS[(field.label ?? '').toLowerCase()] ?? (field.details.line_type === 'mobile' ? 'cell' : 'voice');
        const property = v3
          ? { name: 'TEL', value: text(field.value) }
          : { name: 'TEL', params: [['VALUE', 'uri']] as Array<[string, string]>, value: text(field.details.uri) || `tel:${text(field.value)}` };
        return labelled(property, field.label, [kind]);
      }
      case 'email':
        return labelled({ name: 'EMAIL', value: escapeText(text(field.value)) }, field.label, v3 ? ['internet'] : []);
      case 'postal_address': {
        const street = [...((value.street_lines as string[] | undefined) ?? []), text(value.dependent_locality)].filter(Boolean).join('\n');
        const postal = [text(value.postal_code), text(value.sorting_code)].filter(Boolean).join(' ');
        const country = field.country ? countryName(field.country) : '';
        return labelled({ name: 'ADR', value: components(['', '', street, text(value.locality), text(value.region), postal, country]) }, field.label);
      }
      case 'birthday': {
        const { year, month, day } = value as { year?: number; month: number; day: number };
        const md = `${String(month).padStart(2, '0')}${String(day).padStart(2, '0')}`;
        if (year !== undefined) {
          const y = String(year).padStart(4, '0');
          props.push({ name: 'BDAY', value: v3 ? `${y}-${md.slice(0, 2)}-${md.slice(2)}` : `${y}${md}` });
        } else if (v3) {
          // 3.0 has no year-less date; Apple reads this (STANDARDS.md), others keep 1604.
          props.push({ name: 'BDAY', params: [['X-APPLE-OMIT-YEAR', '1604']], value: `1604-${md.slice(0, 2)}-${md.slice(2)}` });
        } else {
          props.push({ name: 'BDAY', value: `--${md}` }); // RFC 6350 §4.3.1, truncated date
        }
        return;
      }
      case 'url':
        return labelled({ name: 'URL', value: text(field.value) }, field.label);
      case 'social': {
        const { platform, handle } = value as { platform: string; handle: string };
        const url = text(field.details.url);
        if (v3) {
          return labelled({ name: 'X-SOCIALPROFILE', params: [['TYPE', paramValue(platform)], ['X-USER', paramValue(handle)]], value: url || escapeText(handle) }, field.label);
        }
        // RFC 9554 §3.4: SOCIALPROFILE, a URI, or text with VALUE=text.
        const params: Array<[string, string]> = [['SERVICE-TYPE', paramValue(platform)], ...(url ? [] : ([['VALUE', 'text']] as Array<[string, string]>))];
        return labelled({ name: 'SOCIALPROFILE', params, value: url || escapeText(handle) }, field.label);
      }
      case 'organization':
        return labelled({ name: 'ORG', value: components([text(value.name), text(value.unit) || undefined].filter((p) => p !== undefined)) }, field.label);
      case 'job_title':
        return labelled({ name: 'TITLE', value: escapeText(text(field.value)) }, field.label);
      case 'pronouns':
        // RFC 9554 §3.3 PRONOUNS in 4.0; 3.0 has nothing, an extension is lost harmlessly.
        return void props.push({ name: v3 ? 'X-PRONOUNS' : 'PRONOUNS', value: escapeText(text(field.value)) });
      case 'language':
        return void props.push({ name: v3 ? 'X-LANGUAGE' : 'LANG', value: text(field.value) });
      case 'time_zone':
        return void props.push({ name: 'TZ', params: v3 ? [['VALUE', 'text']] : [], value: escapeText(text(field.value)) });
      case 'note':
        return void props.push({ name: 'NOTE', value: escapeText(text(field.value)) });
      default:
        // A type added to the catalog later: kept as a note rather than dropped.
        return void props.push({ name: 'NOTE', value: escapeText(`${field.label ?? field.type}: ${typeof field.value === 'string' ? field.value : JSON.stringify(field.value)}`) });
    }
  }

  const rev = card.updated_at.replace(/\.\d{3}Z$/, 'Z');
  const lines: Property[] = [
    { name: 'BEGIN', value: 'VCARD' },
    { name: 'VERSION', value: options.version },
    { name: 'PRODID', value: '-//VID//Identity cards//EN' },
    ...(v3 ? [] : [{ name: 'KIND', value: 'individual' }]),
    { name: 'UID', value: options.uid },
    { name: 'FN', value: escapeText(formattedName) },
    // N is required in 3.0; without a name field the display name stands in as the given name.
    { name: 'N', value: nameField ? components([text(name.family), text(name.given), text(name.middle), text(name.prefix), text(name.suffix)]) : components(['', formattedName, '', '', '']) },
    ...props,
    { name: 'REV', value: v3 ? rev : rev.replace(/[-:]/g, '') },
    { name: 'END', value: 'VCARD' },
  ];
  return lines.map(serialise).join(CRLF) + CRLF;
}
