import { createHash } from 'node:crypto';
import { nameInRegion } from '../../platform/person-name.js';
import { countryName } from '../../platform/countries.js';
import type { Card, CardField, VcardVersion } from './card.js';

/**
 * A card as a vCard: 3.0 (RFC 2426) by default, which phones' address books import, or 4.0
 * (RFC 6350) when asked for (PRODUCT §6; docs/vcard.md lists the importers checked and what each
 * needs). Every field type maps to a property (docs/profiles.md has the table); standard
 * properties carry what matters, extensions what may be lost harmlessly.
 */
export type { VcardVersion };

export interface VcardOptions {
  version: VcardVersion;
  /** Stable per owner, so a re-import updates the contact instead of adding another. */
  uid: string;
  /**
   * 4.0 only: the reader understands RFC 9554, so SOCIALPROFILE and PRONOUNS are written as
   * such. Otherwise their X- forms, which strict RFC 6350 readers accept (an unknown IANA
   * property is an error to them, an X- property never is: RFC 6350 §6.10).
   */
  rfc9554?: boolean;
  /**
   * The photos the card's photo fields name, by photo id (256 px JPEG squares): the first the
   * card shows becomes PHOTO, inline, since an importer reads no link it would have to fetch.
   */
  photos?: ReadonlyMap<string, Buffer>;
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
 * Text values, in both versions: backslash, comma, semicolon and line breaks escaped. RFC 2426
 * §4 (3.0's text-value) allows none of them bare; RFC 6350 §3.4 requires the same except for a
 * semicolon outside a structured value, which it allows escaped, and strict 4.0 readers (vcard4)
 * split an unescaped one into components, so it is escaped there too.
 */
export function escapeText(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/;/g, '\\;').replace(/\r\n|\r|\n/g, '\\n');
}

/** A structured value (N, ADR, ORG): components separated by unescaped semicolons. */
const components = (parts: ReadonlyArray<string | undefined>) => parts.map((part) => escapeText(part ?? '')).join(';');

/** Parameter values with anything but plain word characters are quoted (RFC 6350 §5); quotes cannot occur. */
function paramValue(value: string): string {
  const clean = value.replace(/"/g, "'").replace(/[\r\n]+/g, ' ');
  return /^[A-Za-z0-9._-]*$/.test(clean) ? clean : `"${clean}"`;
}

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * Where a line may be cut: between user-perceived characters (Unicode UAX #29 grapheme
 * clusters, so an accent stays on its letter and an emoji sequence whole) and never inside an
 * escape (`\,`, `\n`, `\\`), so a reader that decodes line by line still sees each one whole.
 * A cluster longer than a line (a pile of combining marks) is cut between its code points.
 */
function pieces(line: string): string[] {
  const out: string[] = [];
  for (const part of line.split(/(\\[^])/u)) {
    if (!part) continue;
    if (part.length === 2 && part[0] === '\\') {
      out.push(part);
      continue;
    }
    for (const { segment } of graphemes.segment(part)) {
      if (Buffer.byteLength(segment, 'utf8') < MAX_OCTETS) out.push(segment);
      else out.push(...segment);
    }
  }
  return out;
}

const endsInSpace = (piece: string | undefined) => piece !== undefined && /\s$/u.test(piece);
const startsWithSpace = (piece: string | undefined) => piece !== undefined && /^\s/u.test(piece);

/**
 * RFC 6350 §3.2 (and RFC 2425 §5.8.1 for 3.0): lines longer than 75 octets are folded with CRLF
 * and one space, which a reader removes. Never inside a UTF-8 sequence, nor inside a character
 * as people read it or an escape (see pieces). And never beside white space: lenient readers
 * trim the lines they join (vcard-parser trims both ends, others the end), which would eat a
 * space that sits at the end of a line or right after the fold's own space. So each line is cut
 * as late as fits, then moved back to the nearest cut with no white space on either side; only
 * a run of white space longer than a line (which the service's text rules never keep) is cut
 * where it fits, as RFC 6350 readers still read it exactly.
 */
export function fold(line: string): string {
  if (Buffer.byteLength(line, 'utf8') <= MAX_OCTETS) return line;
  const all = pieces(line);
  const sizes = all.map((piece) => Buffer.byteLength(piece, 'utf8'));
  const lines: string[] = [];
  let start = 0;
  while (start < all.length) {
    // Continuation lines start with the fold's space, which counts toward their 75 octets.
    const room = lines.length === 0 ? MAX_OCTETS : MAX_OCTETS - 1;
    let end = start;
    for (let octets = 0; end < all.length && octets + sizes[end]! <= room; end++) octets += sizes[end]!;
    let cut = end;
    if (end < all.length) {
      while (cut > start + 1 && (endsInSpace(all[cut - 1]) || startsWithSpace(all[cut]))) cut--;
      if (endsInSpace(all[cut - 1]) || startsWithSpace(all[cut])) cut = end;
    }
    lines.push(all.slice(start, cut).join(''));
    start = cut;
  }
  return lines.join(`${CRLF} `);
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

/**
 * A phone number in 3.0, whose TEL value is free text (RFC 2426 §3.3.1), not a tel: URI as in
 * 4.0: the E.164 number, and an extension after a wait `;` (`+442079460958;123`), the dial
 * string both phones store and dial: Android's dialer sends what follows PhoneNumberUtils.WAIT
 * after the call connects, DAVx5 stores a 3.0 TEL as written (and maps 4.0's `;ext=` to the same
 * wait, davx5-ose#2258), and iOS's Phone app offers "Dial 123" at its wait. Not ` x123`: Android
 * dials letters as keypad digits (x is 9). Not a pause comma: python-vobject cuts a value at a
 * bare comma. Decision 310 has the sources.
 */
export function tel30(value: string): string {
  const [number, extension] = value.split(';ext=');
  return extension ? `${number};${extension}` : number!;
}

/**
 * A link as a URI value (URL, a social profile's link): as stored, with commas percent-encoded.
 * A URI is not text, so RFC 2426 does not escape it and readers that know the property keep a
 * backslash (ical.js in 3.0, vcard4 in 4.0); but python-vobject cuts any value at a bare comma.
 * `%2C` reads the same everywhere, and servers decode it in paths and queries like the comma.
 */
export const uriValue = (uri: string): string => uri.replace(/,/g, '%2C');

const KNOWN_LABELS: Record<string, string> = { home: 'home', personal: 'home', private: 'home', work: 'work', office: 'work', business: 'work' };
const TEL_KINDS: Record<string, string> = { mobile: 'cell', cell: 'cell', fax: 'fax', pager: 'pager' };

type Value = Record<string, unknown>;
const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** Writes one card as one vCard (BEGIN…END, CRLF line ends). */
export function cardToVcard(card: Card, options: VcardOptions): string {
  const v3 = options.version === '3.0';
  const rfc9554 = !v3 && options.rfc9554 === true;
  const type = (...values: string[]) => (values.length ? [['TYPE', (v3 ? values.map((t) => t.toUpperCase()) : values).join(',')] as [string, string]] : []);
  const props: Property[] = [];
  let groups = 0;
  /** Where the merged NOTE goes: where the first note field was. */
  let noteAt = -1;

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
  // Someone of another region is username@region wherever they are named (PRODUCT §10).
  const username = card.owner.region ? nameInRegion(card.owner.username, card.owner.region) : card.owner.username;
  const formattedName = card.owner.display_name || (nameField ? text(nameField.details.formatted) : '') || username;
  const nameParts = nameField ? [text(name.family), text(name.given), text(name.middle), text(name.prefix), text(name.suffix)] : [];

  // Every note in one NOTE, a blank line between: SyncEvolution keeps only the last of several
  // and an iPhone has one notes field (RFC 6350 §6.7.2 allows several; readers do not).
  const notes: string[] = [];
  for (const field of card.fields) write(field);
  // A phone shows no username: the note says who this is on VID, and that they live elsewhere.
  if (card.owner.region) note(`VID: ${username}`);
  if (notes.length) props.splice(noteAt, 0, { name: 'NOTE', value: escapeText(notes.join('\n\n')) });

  function note(value: string): void {
    if (noteAt === -1) noteAt = props.length;
    notes.push(value);
  }

  function write(field: CardField): void {
    const value = field.value as Value;
    switch (field.type) {
      case 'name':
        return; // N and FN below
      case 'photo':
        return; // PHOTO below, the first the card shows
      case 'nickname':
        return labelled({ name: 'NICKNAME', value: escapeText(text(field.value)) }, null);
      case 'phone': {
        const kind = TEL_KINDS[(field.label ?? '').toLowerCase()] ?? (field.details.line_type === 'mobile' ? 'cell' : 'voice');
        const property = v3
          ? { name: 'TEL', value: tel30(text(field.value)) }
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
        return labelled({ name: 'URL', value: uriValue(text(field.value)) }, field.label);
      case 'social': {
        const { platform, handle } = value as { platform: string; handle: string };
        const url = uriValue(text(field.details.url));
        if (rfc9554) {
          // RFC 9554 §3.4: SOCIALPROFILE, a URI, or text with VALUE=text.
          const params: Array<[string, string]> = [['SERVICE-TYPE', paramValue(platform)], ...(url ? [] : ([['VALUE', 'text']] as Array<[string, string]>))];
          return labelled({ name: 'SOCIALPROFILE', params, value: url || escapeText(handle) }, field.label);
        }
        // Apple's form, which Apple Contacts reads and every other reader keeps or drops unharmed.
        return labelled({ name: 'X-SOCIALPROFILE', params: [['TYPE', paramValue(platform)], ['X-USER', paramValue(handle)]], value: url || escapeText(handle) }, field.label);
      }
      case 'organization':
        return labelled({ name: 'ORG', value: components([text(value.name), text(value.unit) || undefined].filter((p) => p !== undefined)) }, field.label);
      case 'job_title':
        return labelled({ name: 'TITLE', value: escapeText(text(field.value)) }, field.label);
      case 'pronouns':
        // RFC 9554 §3.3 PRONOUNS for a reader that knows it; else an extension, lost harmlessly.
        return void props.push({ name: rfc9554 ? 'PRONOUNS' : 'X-PRONOUNS', value: escapeText(text(field.value)) });
      case 'language':
        return void props.push({ name: v3 ? 'X-LANGUAGE' : 'LANG', value: text(field.value) });
      case 'time_zone':
        return void props.push({ name: 'TZ', params: v3 ? [['VALUE', 'text']] : [], value: escapeText(text(field.value)) });
      case 'note':
        return note(text(field.value));
      default:
        // A type added to the catalog later: kept as a note rather than dropped.
        return note(`${field.label ?? field.type}: ${typeof field.value === 'string' ? field.value : JSON.stringify(field.value)}`);
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
    // N from the name's parts (RFC 6350 §6.2.2). Without them, the name FN shows, whole, in the
    // given-name slot (PRODUCT §6): Apple Contacts builds a contact's name from N alone and files
    // one with an empty N as "No Name", while where a display name splits into given and family
    // names depends on its language, and a guessed split files the person under the wrong letter.
    { name: 'N', value: components(nameParts.some(Boolean) ? nameParts : ['', formattedName, '', '', '']) },
    ...props,
    ...photoProperty(card, options),
    { name: 'REV', value: v3 ? rev : rev.replace(/[-:]/g, '') },
    { name: 'END', value: 'VCARD' },
  ];
  return lines.map(serialise).join(CRLF) + CRLF;
}

/**
 * PHOTO, inline JPEG: 3.0 as RFC 2426 §3.1.4 writes binary (ENCODING=b, TYPE=JPEG), which
 * Apple, Google and Android import; 4.0 as a data: URI (RFC 6350 §6.2.4, RFC 2397).
 */
function photoProperty(card: Card, options: VcardOptions): Property[] {
  const id = vcardPhotoIdOf(card);
  const bytes = id === undefined ? undefined : options.photos?.get(id);
  if (bytes) {
    const base64 = bytes.toString('base64');
    return options.version === '3.0'
      ? [{ name: 'PHOTO', params: [['ENCODING', 'b'], ['TYPE', 'JPEG']], value: base64 }]
      : [{ name: 'PHOTO', value: `data:image/jpeg;base64,${base64}` }];
  }
  return [];
}

/** The photo a card's vCard carries as PHOTO: the first its photo fields name, if any. */
export function vcardPhotoIdOf(card: Card): string | undefined {
  return (card.fields.find((field) => field.type === 'photo')?.value as { photo_id: string } | undefined)?.photo_id;
}
