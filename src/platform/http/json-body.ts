import type { FastifyInstance } from 'fastify';
import { refuse } from '../errors.js';

/**
 * How an application/json body is read (docs/decisions/130-json-bodies.md): strict UTF-8, at
 * most MAX_JSON_DEPTH levels of arrays and objects, and strings that are well-formed Unicode;
 * then Fastify's own parser (secure-json-parse, __proto__ and constructor.prototype refused).
 */

/** RFC 8259 §9 lets a parser limit nesting. The API's deepest body, a WebAuthn credential, has four levels. */
export const MAX_JSON_DEPTH = 32;

// RFC 8259 §8.1: JSON exchanged between systems is UTF-8. Fatal: malformed bytes, overlong forms
// and encoded surrogates (CESU-8) throw instead of becoming U+FFFD. A leading BOM is dropped
// (§8.1 lets a parser ignore it; Fastify's parser did too).
const utf8 = new TextDecoder('utf-8', { fatal: true });

// Decoded strictly, the text itself holds no lone surrogate; only a \uD800-\uDFFF escape can make
// one. This finds every such escape (and a few escaped backslashes before the letters "ud8…").
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
// With the u flag a surrogate pair is one code point, so only a lone surrogate matches.
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Whether arrays and objects nest deeper than `max` anywhere in a JSON text, found without
 * parsing it: brackets inside strings do not count. Stops at the first level past `max`.
 */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip to the quote that ends the string: one preceded by an even run of backslashes.
      let end = text.indexOf('"', i + 1);
      while (end !== -1) {
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
        if (slashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end === -1) return false; // unterminated: the parser refuses it
      i = end;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** Whether any string or member name in a parsed value holds a lone surrogate (RFC 8259 §8.2). */
export function holdsLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.some(holdsLoneSurrogate);
  if (value !== null && typeof value === 'object') {
    for (const [key, member] of Object.entries(value)) if (LONE_SURROGATE.test(key) || holdsLoneSurrogate(member)) return true;
  }
  return false;
}

/** Replaces Fastify's application/json parser, for every route; call before any route is registered. */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      return done(refuse('invalid_json', 'the body is not valid UTF-8 (RFC 8259 §8.1)'), undefined);
    }
    // Before parsing: a deep body never becomes a deep value for later code to recurse into.
    if (nestedDeeperThan(text, MAX_JSON_DEPTH)) {
      return done(refuse('json_too_deep', `arrays and objects nest more than ${MAX_JSON_DEPTH} levels deep`), undefined);
    }
    parseJson(request, text, (error, value) => {
      if (error) return done(error, undefined);
      // Depth is capped above, so this walk is shallow; most bodies skip it on the text check.
      if (SURROGATE_ESCAPE.test(text) && holdsLoneSurrogate(value)) {
        return done(refuse('invalid_json', 'a string holds a lone surrogate (\\uD800-\\uDFFF without its pair): it is not Unicode text (RFC 8259 §8.2)'), undefined);
      }
      done(null, value);
    });
  });
}
