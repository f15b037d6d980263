import Negotiator from 'negotiator';

/** What an Accept header says about one parameter of a media type (a version, RFC 6350 §10.1). */
export type ParameterChoice =
  /** The value the client prefers among those offered. */
  | { kind: 'chosen'; value: string }
  /** The client leaves it to the server: no Accept, a wildcard, the type without the parameter, or only other types. */
  | { kind: 'open' }
  /** The client takes the type only in forms not offered (`text/vcard; version=2.1`). */
  | { kind: 'unavailable' };

// Offered before the real values: where Accept prefers no value over another (a wildcard, or the
// type without the parameter), this one wins the tie (negotiator keeps the offered order), so
// "the client left it open" is told apart from "the client chose the first value".
const ANY = 'x-any-value';

/**
 * The value of a media type's parameter that Accept prefers (RFC 9110 §12.5.1: by q, then by
 * the most specific range), read with `negotiator`. `mediaType` is what is served, with the
 * parameters it always has (`text/vcard;charset=utf-8`). Only other types accepted is `open`:
 * the server may then disregard Accept and send its default (ibid.).
 */
export function acceptedParameter(accept: string | undefined, mediaType: string, parameter: string, offered: readonly string[]): ParameterChoice {
  if (accept === undefined || accept.trim() === '') return { kind: 'open' };
  const negotiator = new Negotiator({ headers: { accept } });
  const best = negotiator.mediaTypes([ANY, ...offered].map((value) => `${mediaType};${parameter}=${value}`))[0];
  if (best !== undefined) {
    const value = best.slice(best.lastIndexOf('=') + 1);
    return value === ANY ? { kind: 'open' } : { kind: 'chosen', value };
  }
  const type = mediaType.split(';')[0]!.toLowerCase();
  return negotiator.mediaTypes().some((range) => range.toLowerCase() === type) ? { kind: 'unavailable' } : { kind: 'open' };
}
