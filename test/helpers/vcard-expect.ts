// What a vCard must say of a card (PRODUCT §6, docs/profiles.md "vCard"), held against each
// reader's reading (vcard-readers.ts): every value of the card intact, under the property the
// version and form call for, and each custom label on the group of the property it labels.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Card } from '../../src/modules/profiles/card.js';
import { countryName } from '../../src/platform/countries.js';
import { cleanText } from '../../src/platform/text.js';
import { all, nameKey } from './vcard-readers.js';
import type { Reading } from './vcard-readers.js';

export interface Form {
  version: '3.0' | '4.0';
  rfc9554?: boolean;
}

// Labels address books know as a TYPE or a phone's kind; any other rides on an X-ABLabel.
const TYPE_LABELS = new Set(['home', 'personal', 'private', 'work', 'office', 'business', 'mobile', 'cell', 'fax', 'pager']);
const str = (value: unknown) => (typeof value === 'string' ? value : '');

/** The properties a card's fields must appear as: name, value, and the custom label if any. */
function expected(card: Card, form: Form): Array<{ name: string; value: string | string[]; label?: string }> {
  const v3 = form.version === '3.0';
  const rfc9554 = !v3 && form.rfc9554 === true;
  const out: Array<{ name: string; value: string | string[]; label?: string }> = [];
  const notes: string[] = [];
  let noteAt = 0;
  for (const field of card.fields) {
    const value = field.value as Record<string, unknown>;
    const label = field.label && !TYPE_LABELS.has(field.label.toLowerCase()) ? field.label : undefined;
    switch (field.type) {
      case 'nickname':
        out.push({ name: 'NICKNAME', value: str(field.value) });
        break;
      case 'phone':
        // 3.0: the number and a wait ';' before the extension (decision 310); 4.0: the tel: URI (RFC 3966).
        out.push({ name: 'TEL', value: v3 ? str(field.value).replace(';ext=', ';') : str(field.details.uri), label });
        break;
      case 'email':
        out.push({ name: 'EMAIL', value: str(field.value), label });
        break;
      case 'postal_address': {
        const street = [...((value.street_lines as string[] | undefined) ?? []), str(value.dependent_locality)].filter(Boolean).join('\n');
        const postal = [str(value.postal_code), str(value.sorting_code)].filter(Boolean).join(' ');
        out.push({ name: 'ADR', value: ['', '', street, str(value.locality), str(value.region), postal, field.country ? countryName(field.country) : ''], label });
        break;
      }
      case 'url':
        // A link's commas percent-encoded (python-vobject cuts a value at a bare comma).
        out.push({ name: 'URL', value: str(field.value).replaceAll(',', '%2C'), label });
        break;
      case 'social':
        out.push({ name: rfc9554 ? 'SOCIALPROFILE' : 'X-SOCIALPROFILE', value: str(field.details.url).replaceAll(',', '%2C') || str(value.handle), label });
        break;
      case 'organization':
        out.push({ name: 'ORG', value: [str(value.name), ...(value.unit ? [str(value.unit)] : [])], label });
        break;
      case 'job_title':
        out.push({ name: 'TITLE', value: str(field.value), label });
        break;
      case 'pronouns':
        out.push({ name: rfc9554 ? 'PRONOUNS' : 'X-PRONOUNS', value: str(field.value) });
        break;
      case 'note':
        if (!notes.length) noteAt = out.length;
        notes.push(str(field.value));
        break;
    }
  }
  // Every note in one NOTE, a blank line between, where the first was.
  if (notes.length) out.splice(noteAt, 0, { name: 'NOTE', value: notes.join('\n\n') });
  return out;
}

/**
 * Holds one reader's reading of one card to the card: VERSION, FN, N (the name's parts, or
 * without them FN whole in the given-name slot, never empty), every field's value under its property in order, and each
 * custom label as an X-ABLabel on the group of the property it labels.
 */
export function assertReadsCard(reading: Reading, card: Card, form: Form): void {
  const where = `${reading.reader} (vCard ${form.version}${form.rfc9554 ? ' + RFC 9554' : ''})`;
  assert.equal(reading.version, form.version, `${where}: VERSION`);
  const nameField = card.fields.find((f) => f.type === 'name');
  const name = (nameField?.value ?? {}) as Record<string, unknown>;
  // What a reader is known to misread (Reading.misreads) is not held to it.
  const readable = (property: string, ...values: Array<string | string[]>) => !reading.misreads || !values.some((value) => reading.misreads!(value, property));
  const fn = card.owner.display_name || (nameField ? str(nameField.details.formatted) : '') || card.owner.username;
  if (readable('FN', fn)) assert.deepEqual(all(reading, 'FN').map((p) => p.value), [fn], `${where}: FN`);
  const parts = nameField ? [str(name.family), str(name.given), str(name.middle), str(name.prefix), str(name.suffix)] : [];
  const n = parts.some(Boolean) ? parts : ['', fn, '', '', ''];
  if (readable('N', n)) assert.deepEqual(all(reading, 'N').map((p) => p.value), [n], `${where}: N`);

  const wanted = expected(card, form).map((w) => (w.name === 'ORG' && reading.orgJoined ? { ...w, value: (w.value as string[]).join(';') } : w));
  for (const property of new Set(wanted.map((w) => w.name))) {
    if (!readable(property, ...wanted.filter((w) => w.name === property).map((w) => w.value))) continue;
    assert.deepEqual(
      all(reading, property).map((p) => p.value),
      wanted.filter((w) => w.name === property).map((w) => w.value),
      `${where}: ${property}`,
    );
  }
  // The card's first photo, inline, once (decision 291); its bytes are the readers' own business.
  if (card.fields.some((f) => f.type === 'photo')) assert.equal(all(reading, 'PHOTO').length, 1, `${where}: PHOTO`);
  else assert.equal(all(reading, 'PHOTO').length, 0, `${where}: no PHOTO`);
  // Each custom label names the group of the one property it labels.
  const labels = all(reading, 'X-ABLabel');
  if (!readable('X-ABLabel', ...wanted.filter((w) => w.label).map((w) => w.label!))) return;
  assert.deepEqual(labels.map((l) => l.value), wanted.filter((w) => w.label).map((w) => w.label), `${where}: X-ABLabel`);
  for (const label of reading.groupless ? [] : labels) {
    const labelled = reading.properties.filter((p) => p.group === label.group && p.name !== nameKey('X-ABLabel'));
    const want = wanted.find((w) => w.label === label.value && labelled.some((p) => p.name === nameKey(w.name)));
    assert.ok(label.group && labelled.length === 1 && want, `${where}: the label ${JSON.stringify(label.value)} sits on its own group with what it labels`);
  }
}

// What escaping and folding must survive: separators, backslashes, line breaks, spaces (plain and
// no-break), combining marks (precomposed or not, several on a letter), emoji sequences and flags.
const PIECES = fc.constantFrom('a', 'Z', ' ', ' ', ',', ';', ':', '\\', '\n', '"', '^', 'é', 'e\u0301', 'ß', '中', '🎉', '👩\u200d💻', '🇩🇪', 'a\u0308\u0323', '\u00a0');
const UNSAFE = /[\p{Cc}\p{Cs}\u202A-\u202E\u2066-\u2069]/gu;

/**
 * Text a field or display name can hold, as the service's text rules leave it (platform/text.ts:
 * NFC, trimmed, one space between words, line breaks only when `multiline`, at most `max` code
 * points), after 0–80 letters of padding so that separators and spaces fall on every fold point.
 */
export function serviceText(max: number, multiline = false): fc.Arbitrary<string> {
  return fc
    .tuple(fc.nat({ max: 80 }), fc.oneof(fc.string({ unit: 'grapheme', maxLength: 100 }), fc.string({ unit: PIECES, maxLength: 160 })))
    .map(([pad, text]) => {
      const safe = `${'x'.repeat(pad)}${text}`.replace(UNSAFE, (c) => (multiline && c === '\n' ? c : ' '));
      const result = cleanText([...safe].slice(0, max).join(''), { path: '/value', max, multiline });
      return result.ok && result.text ? result.text : 'x';
    });
}
