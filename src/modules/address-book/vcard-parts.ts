import type { QueryFilter, TextMatch } from './dav-requests.js';

/**
 * Reading the vCards the service wrote (profiles' card builder), for the two things a CardDAV
 * REPORT may ask of one beyond sending it whole: only some of its properties (RFC 6352
 * §10.4.2) and whether it matches a filter (§10.5). Only our own output is read, so only the
 * grammar it uses is needed: CRLF lines folded with a leading space (RFC 2426 §2.6), an
 * optional group, parameters whose values may be quoted, text values escaped with backslashes.
 */

/** The card's content lines, each with its folded continuations, as written. */
function physicalLines(vcard: string): string[] {
  const lines: string[] = [];
  for (const line of vcard.split(/\r\n/)) {
    if ((line.startsWith(' ') || line.startsWith('\t')) && lines.length) lines[lines.length - 1] += `\r\n${line}`;
    else if (line !== '') lines.push(line);
  }
  return lines;
}

const unfold = (line: string) => line.replace(/\r\n[ \t]/g, '');

/** The property name of a content line, upper case, without its group (`item1.TEL` is TEL). */
function nameOf(line: string): string {
  const head = /^[^;:]*/.exec(line)![0];
  return head.slice(head.lastIndexOf('.') + 1).toUpperCase();
}

/** The value of a content line: after the first colon outside a quoted parameter value, unescaped. */
function valueOf(line: string): string {
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') quoted = !quoted;
    else if (c === ':' && !quoted) return line.slice(i + 1).replace(/\\([nN,;\\])/g, (_, e: string) => (e === 'n' || e === 'N' ? '\n' : e));
  }
  return '';
}

/** Every vCard holds these, whatever a client asks for (RFC 2426 §3.6.9, §2.1.1). */
const ALWAYS = new Set(['BEGIN', 'END', 'VERSION']);

/** The card with only the named properties (and BEGIN, VERSION, END), folded lines kept as written. */
export function vcardSubset(vcard: string, names: readonly string[]): string {
  const wanted = new Set(names.map((name) => name.toUpperCase()));
  return physicalLines(vcard)
    .filter((line) => ALWAYS.has(nameOf(line)) || wanted.has(nameOf(line)))
    .map((line) => `${line}\r\n`)
    .join('');
}

/** Text in the form a collation compares (RFC 4790 §9.2, §9.3; RFC 5051 for i;unicode-casemap). */
function collate(text: string, collation: TextMatch['collation']): string {
  if (collation === 'i;octet') return text;
  if (collation === 'i;ascii-casemap') return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
  return text.normalize('NFKD').toLowerCase();
}

function textMatches(value: string, match: TextMatch): boolean {
  const [have, want] = [collate(value, match.collation), collate(match.text, match.collation)];
  const hit =
    match.matchType === 'equals' ? have === want : match.matchType === 'starts-with' ? have.startsWith(want) : match.matchType === 'ends-with' ? have.endsWith(want) : have.includes(want);
  return hit !== match.negate;
}

/**
 * Whether a card matches a filter (RFC 6352 §10.5.1, §10.5.4): a prop-filter matches when some
 * occurrence of its property passes its text-matches (all or any, by its test), or, without
 * text-matches, when the property is there; the filter combines its prop-filters the same way.
 */
export function matchesFilter(vcard: string, filter: QueryFilter): boolean {
  const lines = physicalLines(vcard).map(unfold);
  const one = (prop: QueryFilter['props'][number]) => {
    const values = lines.filter((line) => nameOf(line) === prop.name).map(valueOf);
    if (prop.matches.length === 0) return values.length > 0;
    const test = (match: TextMatch) => values.some((value) => textMatches(value, match));
    return prop.allOf ? prop.matches.every(test) : prop.matches.some(test);
  };
  return filter.allOf ? filter.props.every(one) : filter.props.some(one);
}
