// Independent vCard readers (docs/vcard.md), each reading a file into the same plain shape so a
// test can hold every one of them to what the card says: ical.js (vCard 3.0 and 4.0, jCard),
// python-vobject (Debian's python3-vobject, which khard and vdirsyncer read with), vcard4-ts
// (RFC 6350 and its extensions), vcf (2.1 to 4.0) and, for 4.0 only, vcard4 (a strict RFC 6350
// reader that refuses any property or parameter it does not know).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import ICAL from 'ical.js';
import { parse as parseVcard4 } from 'vcard4';
import { parseVCards } from 'vcard4-ts';

const require = createRequire(import.meta.url);
const vcf = require('vcf') as { parse(text: string): Array<{ version: string; data: Record<string, VcfProperty | VcfProperty[]> }> };
interface VcfProperty {
  _field: string;
  _data: string;
  group?: string;
  [param: string]: unknown;
}

/** A property as read: its name (upper case, without dashes, which vcf turns into camelCase), group, and value. */
export interface ReadProperty {
  name: string;
  group?: string;
  /** Decoded text; the components of N, ADR and ORG. */
  value: string | string[];
}

export interface Reading {
  reader: string;
  version: string;
  properties: ReadProperty[];
  /**
   * The reader reads ORG as one text list (vcard4-ts: a comma list, not RFC 6350 §6.6.4's
   * semicolon-separated components), so ORG comes as its components joined by `;` after decoding:
   * every character is checked, the component boundaries by the other readers.
   */
  orgJoined?: true;
  /** The reader drops the group prefix (vcard4-ts): which label sits with which property is left to the others. */
  groupless?: true;
  /**
   * Values the reader is known to misread, which are then not held to it (it must still read the
   * file; every value is held to the other readers). ical.js: see readIcal. vcard4: it takes `"…"` inside a value as quoting, which RFC 6350 values do not have (a
   * double quote is a plain character of text, §3.3, with no escape), it drops a value or
   * component that ends in an escaped `;` or `,` (its splitter skips the last piece after one),
   * and it hands back as written any value that parses as a URL, so text that begins like a
   * scheme (`x:`) keeps its escapes.
   */
  misreads?: (value: string | string[], property: string) => boolean;
}

export const nameKey = (name: string) => name.toUpperCase().replace(/[-_]/g, '');
const STRUCTURED = new Set(['N', 'ADR', 'ORG']);

/**
 * One value as text. A reader that split a value in several (at a comma or semicolon it should
 * have read as text) keeps the pieces apart, joined by NUL, which no expected value contains,
 * so the split shows as a mismatch instead of being glued back.
 */
const one = (value: unknown): string => (Array.isArray(value) ? (value.length === 1 ? one(value[0]) : value.map(one).join('\u0000')) : String(value));
/** A structured value's components; a lone component may come unwrapped. */
const parts = (value: unknown): string[] => (Array.isArray(value) ? value.map(one) : [one(value)]);
/** What a reader's value is in the plain shape: components for N, ADR and ORG, else one text. */
const plainOf = (name: string, value: unknown): string | string[] => (STRUCTURED.has(name) ? parts(value) : one(value));

/**
 * RFC 6350 §3.4 / RFC 2426 §4 text decoding, for the two readers that hand some values back as
 * written: vcf every value, vcard4-ts those of X- properties (RFC 6350 leaves an X- property's
 * value type to whoever defined it). The line work (unfolding, names, groups, parameters) stays
 * theirs.
 */
export function decodeText(raw: string): string {
  return raw.replace(/\\([\\,;nN])/g, (_m, c: string) => (c === 'n' || c === 'N' ? '\n' : c));
}

/** A structured value's components (split at unescaped semicolons), each decoded. */
export function decodeComponents(raw: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === '\\' && i + 1 < raw.length) {
      current += raw[i]! + raw[i + 1]!;
      i++;
    } else if (raw[i] === ';') {
      parts.push(current);
      current = '';
    } else current += raw[i];
  }
  parts.push(current);
  return parts.map(decodeText);
}

/**
 * ical.js decodes `\\`, `\,` and `\n` in a vCard's plain text values but leaves `\;` as
 * written (its vCard text type knows `\;` only inside structured values: ical.js issue #173,
 * open since 2015). RFC 2426 §4 requires the escape in 3.0 text and RFC 6350 §3.4 allows it in
 * 4.0, where strict readers need it, so the writer escapes and this finishes ical.js's decoding:
 * every `;` the writer wrote is preceded by its escape's backslash, so dropping that backslash
 * is exact.
 */
export const icalText = (value: string): string => value.replace(/\\;/g, ';');

function readIcal(text: string): Reading[] {
  const parsed = ICAL.parse(text) as unknown[];
  const jcards = (typeof parsed[0] === 'string' ? [parsed] : parsed) as Array<[string, Array<[string, Record<string, unknown>, string, ...unknown[]]>]>;
  return jcards.map(([, props]) => ({
    reader: 'ical.js',
    version: String(props.find(([name]) => name === 'version')?.[3]),
    // It splits N, ADR and ORG at a semicolon after a backslash without asking whether that
    // backslash was itself escaped, so a component ending in a backslash (`\\\\;`) runs into the next.
    misreads: (value: string | string[]) => Array.isArray(value) && value.slice(0, -1).some((part) => part.endsWith('\\')),
    properties: props.map(([name, params, type, ...values]) => {
      const value = plainOf(nameKey(name), values.length === 1 ? values[0] : values);
      // An X- property's value comes as written, of type "unknown" (RFC 7095 §5): read as text.
      return { name: nameKey(name), group: params.group as string | undefined, value: typeof value !== 'string' ? value : type === 'unknown' ? decodeText(value) : icalText(value) };
    }),
  }));
}

function readVcf(text: string): Reading[] {
  return vcf.parse(text).map((card) => ({
    reader: 'vcf',
    version: card.version,
    properties: Object.values(card.data)
      .flat()
      .map((prop) => ({ name: nameKey(prop._field), group: prop.group, value: STRUCTURED.has(nameKey(prop._field)) ? decodeComponents(prop._data) : decodeText(prop._data) })),
  }));
}

// The members vcard4-ts and vcard4 name N's and ADR's components by (RFC 6350 §6.2.2, §6.3.1).
const N_PARTS = ['familyNames', 'givenNames', 'additionalNames', 'honorificPrefixes', 'honorificSuffixes'];
const ADR_PARTS = ['postOfficeBox', 'extendedAddress', 'streetAddress', 'locality', 'region', 'postalCode', 'countryName'];

interface Vcard4TsProperty {
  group?: string;
  value: unknown;
}
interface Vcard4TsNag {
  key: string;
  isError: boolean;
  attributes?: { property?: string };
}

/** vcard4-ts reads 3.0 too, but as a 4.0 reader it calls VERSION:3.0 wrong: the one complaint let through. */
function readVcard4Ts(text: string): Reading[] {
  const parsed = parseVCards(text);
  assert.equal(parsed.nags, undefined, `vcard4-ts: ${JSON.stringify(parsed.nags)}`);
  return (parsed.vCards ?? []).map((card) => {
    const record = card as unknown as Record<string, unknown> & { nags?: Vcard4TsNag[]; x?: Record<string, Vcard4TsProperty[]>; VERSION: { value: string } };
    const errors = (record.nags ?? []).filter((n) => n.isError && !(n.key === 'VALUE_INVALID' && n.attributes?.property === 'VERSION' && record.VERSION.value === '3.0'));
    assert.deepEqual(errors, [], `vcard4-ts found errors: ${JSON.stringify(record.nags)}`);
    const properties: ReadProperty[] = [];
    for (const [key, entry] of Object.entries(record)) {
      if (['nags', 'x', 'unparseable', 'hasErrors'].includes(key)) continue;
      for (const prop of [entry].flat() as Vcard4TsProperty[]) {
        const name = nameKey(key);
        const record = prop.value as Record<string, unknown>;
        const value =
          name === 'N' ? N_PARTS.map((part) => one(record[part])) : name === 'ADR' ? ADR_PARTS.map((part) => one(record[part])) : name === 'ORG' ? one(prop.value) : plainOf(name, prop.value);
        properties.push({ name, group: prop.group?.toLowerCase(), value });
      }
    }
    for (const [key, entries] of Object.entries(record.x ?? {})) {
      for (const prop of entries) properties.push({ name: nameKey(key), group: prop.group?.toLowerCase(), value: decodeText(String(prop.value)) });
    }
    return { reader: 'vcard4-ts', version: record.VERSION.value, properties, orgJoined: true, groupless: true };
  });
}

interface Vcard4Token {
  group: string | null;
  property: string;
  value: unknown;
}

/** vcard4 reads only 4.0, and refuses (throws) on anything RFC 6350 does not allow. */
export function readVcard4(text: string): Reading[] {
  const parsed = parseVcard4(text) as { parsedVcard: Vcard4Token[] } | Array<{ parsedVcard: Vcard4Token[] }>;
  return [parsed].flat().map(({ parsedVcard }) => ({
    reader: 'vcard4',
    version: '4.0',
    misreads: (value: string | string[]) => {
      const parts = [value].flat();
      const written = parts.join(';');
      return written.includes('"') || parts.some((part) => /[;,]$/.test(part)) || (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(written) && /[\\,;\n]/.test(written));
    },
    properties: parsedVcard.map((token) => {
      const name = nameKey(token.property);
      const record = token.value as Record<string, unknown>;
      const value =
        name === 'N' ? N_PARTS.map((part) => one(record[part])) : name === 'ADR' ? ADR_PARTS.map((part) => one(record[part])) : plainOf(name, token.value);
      return { name, group: token.group?.toLowerCase() ?? undefined, value };
    }),
  }));
}

/** The python-vobject reader: one process for the test file, fed a file per line; close it in after(). */
class Vobject {
  private child: ChildProcessWithoutNullStreams | undefined;
  private answers: Array<(line: string) => void> = [];

  private start(): ChildProcessWithoutNullStreams {
    // Debian's interpreter, where python3-vobject is installed (.ci/run installs it).
    const child = spawn('/usr/bin/python3', [fileURLToPath(new URL('./vobject-reader.py', import.meta.url))], { stdio: ['pipe', 'pipe', 'pipe'] });
    createInterface({ input: child.stdout }).on('line', (line) => this.answers.shift()?.(line));
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('exit', (code) => {
      for (const answer of this.answers.splice(0)) answer(JSON.stringify({ error: `python3 vobject-reader.py exited ${code}: ${stderr}` }));
      this.child = undefined;
    });
    return child;
  }

  async read(text: string): Promise<Reading[]> {
    const child = (this.child ??= this.start());
    const line = await new Promise<string>((resolve) => {
      this.answers.push(resolve);
      child.stdin.write(`${JSON.stringify({ text })}\n`);
    });
    const answer = JSON.parse(line) as { cards?: Array<Array<[string, string | null, Record<string, string[]>, string | string[]]>>; error?: string };
    assert.equal(answer.error, undefined, `python-vobject: ${answer.error}`);
    return answer.cards!.map((lines) => ({
      reader: 'python-vobject',
      version: String(lines.find(([name]) => name === 'VERSION')?.[3]),
      properties: lines.map(([name, group, , value]) => ({ name: nameKey(name), group: group?.toLowerCase() ?? undefined, value: plainOf(nameKey(name), value) })),
    }));
  }

  close(): void {
    this.child?.stdin.end();
    this.child?.kill();
    this.child = undefined;
  }
}

export const vobject = new Vobject();

/**
 * Every reader's reading of a vCard file (one or more cards): four for 3.0, five for 4.0, four
 * for 4.0 with RFC 9554's properties (`rfc9554`), which vcard4, knowing only RFC 6350, refuses
 * (the reason they are written only on request). A reader that refuses the file fails the
 * calling test with its own message.
 */
export async function readEverywhere(text: string, options: { rfc9554?: boolean } = {}): Promise<Reading[][]> {
  const version = /\r\nVERSION:(\d\.\d)\r\n/.exec(text)?.[1];
  const readers: Array<[string, (t: string) => Reading[] | Promise<Reading[]>]> = [
    ['ical.js', readIcal],
    ['python-vobject', (t) => vobject.read(t)],
    ['vcard4-ts', readVcard4Ts],
    ['vcf', readVcf],
    ...(version === '4.0' && !options.rfc9554 ? ([['vcard4', readVcard4]] as Array<[string, (t: string) => Reading[]]>) : []),
  ];
  const readings: Reading[][] = [];
  for (const [name, read] of readers) {
    try {
      readings.push(await read(text));
    } catch (error) {
      throw new Error(`${name} could not read the vCard: ${(error as Error).message}\n${text}`, { cause: error });
    }
  }
  return readings;
}

/** The properties of one name in a reading, in order. */
export const all = (reading: Reading, name: string) => reading.properties.filter((p) => p.name === nameKey(name));
