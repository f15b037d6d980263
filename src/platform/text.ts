import type { FieldError } from './errors.js';

// Control characters, lone surrogates and bidi overrides/isolates have no place in text shown
// to other people (Unicode UTS #39 §3, "Trojan Source" CVE-2021-42574).
const UNSAFE = /[\p{Cc}\p{Cs}\u202A-\u202E\u2066-\u2069]/u;
const UNSAFE_MULTILINE = /[\p{Cs}\u202A-\u202E\u2066-\u2069]|(?![\n\t])\p{Cc}/u;

export interface TextRule {
  /** JSON pointer of the text, for errors. */
  path: string;
  /** Longest allowed, in code points, once normalised. */
  max: number;
  /** Keep line breaks (notes); otherwise every run of white space becomes one space. */
  multiline?: boolean;
}

export type TextResult = { ok: true; text: string } | { ok: false; error: FieldError };

/**
 * NFC (Unicode UAX #15, so equal text compares equal), trimmed, white space collapsed; refuses
 * unsafe characters and text longer than the rule allows. Empty text comes back as ''.
 */
export function cleanText(raw: string, rule: TextRule): TextResult {
  let text = raw.normalize('NFC');
  if (rule.multiline) {
    text = text
      .replace(/\r\n?/g, '\n')
      .split('\n')
      .map((line) => line.replace(/[^\S\n]+/g, ' ').trimEnd())
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  } else {
    text = text.replace(/\s+/gu, ' ').trim();
  }
  if ((rule.multiline ? UNSAFE_MULTILINE : UNSAFE).test(text)) {
    return { ok: false, error: { path: rule.path, code: 'text_unsafe_characters', message: 'control characters and bidirectional overrides are not allowed' } };
  }
  if ([...text].length > rule.max) {
    return { ok: false, error: { path: rule.path, code: 'text_too_long', message: `at most ${rule.max} characters` } };
  }
  return { ok: true, text };
}

/** cleanText for a required part: empty after cleaning is an error too. */
export function requiredText(raw: string, rule: TextRule): TextResult {
  const result = cleanText(raw, rule);
  if (result.ok && result.text === '') {
    return { ok: false, error: { path: rule.path, code: 'text_empty', message: 'needs visible characters' } };
  }
  return result;
}

/** Object keys sorted, so two values compare by content, not by member order. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** Letters that carry their difference in the base letter, not in a combining mark (so NFKD keeps them). */
const FOLDED_LETTERS: Record<string, string> = { ß: 'ss', ẞ: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i', ħ: 'h', ŧ: 't' };
const FOLDABLE = new RegExp(`[${Object.keys(FOLDED_LETTERS).join('')}]`, 'gu');

/**
 * Text as a search compares it: compatibility-decomposed (UAX #15 NFKD, so "ﬁ" is "fi" and
 * full-width letters are plain), combining marks dropped, lower case, and the few letters whose
 * accent is not a mark (ø, ł, ß) spelt as people type them without it. "Zoë" and "ZOE" fold to
 * "zoe", "Łódź" to "lodz".
 */
export function foldForSearch(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().replace(FOLDABLE, (letter) => FOLDED_LETTERS[letter]!);
}
