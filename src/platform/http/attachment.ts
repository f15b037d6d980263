import transliterate from '@sindresorhus/transliterate';
import { create } from 'content-disposition';

/**
 * An ASCII file name for the `filename` of a download (RFC 6266 §4.3), from a name in any
 * script: transliterated where a Latin reading is known ("Zoë" → zoe, "алиса" → alisa,
 * "łukasz" → lukasz), then decomposed (NFKD) with the marks left dropped, lower-cased, and cut
 * down to letters, digits, `.`, `_` and `-`. Scripts without a Latin reading in the table (Han,
 * Hangul, Hebrew, the Indic scripts) leave nothing, and then `fallback`. Clients that read
 * `filename*` (every current browser) never show this name.
 */
export function asciiFileName(name: string, fallback: string): string {
  const ascii = transliterate(name)
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '');
  return ascii.replace(/^[._-]+/, '') || fallback;
}

/**
 * `Content-Disposition: attachment` for a download named `name.extension` (RFC 6266): the
 * name in UTF-8 as `filename*` (RFC 8187) and an ASCII `filename` beside it for clients that
 * know only that (asciiFileName). Written by `content-disposition`, which quotes and
 * percent-encodes as the two RFCs say.
 */
export function attachment(name: string, extension: string, fallback: string): string {
  return create(`${name}.${extension}`, { fallback: `${asciiFileName(name, fallback)}.${extension}` });
}
