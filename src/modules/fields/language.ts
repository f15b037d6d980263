import { invalid } from './types.js';
import type { FieldTypeDefinition } from './types.js';

// Made on the first language field, not at import: creating it maps in several MB of ICU's
// locale data (file-backed pages of the node binary, which count in resident memory).
let names: Intl.DisplayNames | undefined;

function englishName(tag: string): string | undefined {
  names ??= new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });
  try {
    return names.of(tag);
  } catch {
    return undefined; // 'und' and friends
  }
}

/**
 * A language the person speaks, as a BCP 47 tag (RFC 5646), canonicalised by Intl
 * (ECMA-402 CanonicalizeUnicodeLocaleId: case, deprecated subtags, aliases), and refused when
 * its language subtag is one no registry knows.
 */
export const languageType: FieldTypeDefinition = {
  key: 'language',
  label: 'Language',
  description: 'A BCP 47 language tag (de, pt-BR, zh-Hant). Stored in canonical form; details.formatted is its English name.',
  multiple: true,
  country: 'none',
  suggestedLabels: ['native', 'fluent', 'learning'],
  valueSchema: { type: 'string', minLength: 2, maxLength: 35, examples: ['en', 'pt-BR', 'zh-Hant'] },
  validate(value) {
    let tag: string | undefined;
    try {
      tag = Intl.getCanonicalLocales((value as string).trim())[0];
    } catch {
      tag = undefined;
    }
    if (!tag) return invalid('/value', 'language_tag_invalid', 'not a BCP 47 language tag, e.g. en or pt-BR');
    const language = new Intl.Locale(tag).language;
    const name = englishName(language);
    if (!name) return invalid('/value', 'language_unknown', `no language has the code "${language}"`);
    return { ok: true, value: tag, details: { formatted: englishName(tag) ?? name } };
  },
};
