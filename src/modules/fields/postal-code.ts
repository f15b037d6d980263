/**
 * Postal codes as people type them ("sw1a1aa", "D-10115", "1000001") brought into the form the
 * post prints, before the country's pattern is applied. Only reshapes a code whose characters
 * already fit; anything else is left for the pattern to refuse.
 */

/** Where a separator goes, by the count of letters and digits (national postal standards). */
const SHAPES: Record<string, (compact: string) => string | undefined> = {
  // Royal Mail PAF: outward code, space, 3-character inward code.
  GB: (c) => (c.length >= 5 && c.length <= 7 ? `${c.slice(0, -3)} ${c.slice(-3)}` : undefined),
  JE: (c) => SHAPES.GB?.(c),
  GG: (c) => SHAPES.GB?.(c),
  IM: (c) => SHAPES.GB?.(c),
  // Canada Post: A1A 1A1. Eircode: routing key, space, unique identifier.
  CA: (c) => (c.length === 6 ? `${c.slice(0, 3)} ${c.slice(3)}` : undefined),
  IE: (c) => (c.length === 7 ? `${c.slice(0, 3)} ${c.slice(3)}` : undefined),
  NL: (c) => (/^\d{4}[A-Z]{2}$/.test(c) ? `${c.slice(0, 4)} ${c.slice(4)}` : undefined),
  JP: (c) => (/^\d{7}$/.test(c) ? `${c.slice(0, 3)}-${c.slice(3)}` : undefined),
  BR: (c) => (/^\d{8}$/.test(c) ? `${c.slice(0, 5)}-${c.slice(5)}` : undefined),
  PL: (c) => (/^\d{5}$/.test(c) ? `${c.slice(0, 2)}-${c.slice(2)}` : undefined),
  PT: (c) => (/^\d{7}$/.test(c) ? `${c.slice(0, 4)}-${c.slice(4)}` : undefined),
  US: (c) => (/^\d{9}$/.test(c) ? `${c.slice(0, 5)}-${c.slice(5)}` : /^\d{5}$/.test(c) ? c : undefined),
  CZ: (c) => (/^\d{5}$/.test(c) ? `${c.slice(0, 3)} ${c.slice(3)}` : undefined),
  SK: (c) => SHAPES.CZ?.(c),
  GR: (c) => SHAPES.CZ?.(c),
  SE: (c) => SHAPES.CZ?.(c),
};

/** Old European country prefixes ("D-10115", "CH-8001", "SE-114 55") that are not part of the code. */
const PREFIXES: Record<string, string[]> = {
  DE: ['D', 'DE'], AT: ['A', 'AT'], FR: ['F', 'FR'], IT: ['I', 'IT'], BE: ['B', 'BE'], ES: ['E', 'ES'], PT: ['P', 'PT'],
  CH: ['CH'], NL: ['NL'], DK: ['DK'], NO: ['N', 'NO'], SE: ['S', 'SE'], FI: ['FI'], PL: ['PL'], CZ: ['CZ'], SK: ['SK'],
};

export function normalizePostalCode(raw: string, country: string): string {
  let code = raw.normalize('NFKC').trim().toUpperCase().replace(/\s+/g, ' ');
  for (const prefix of PREFIXES[country] ?? []) {
    if (code.startsWith(`${prefix}-`)) {
      code = code.slice(prefix.length + 1).trim();
      break;
    }
  }
  const shape = SHAPES[country];
  const compact = code.replace(/[\s-]/g, '');
  return (shape && /^[A-Z0-9]+$/.test(compact) && shape(compact)) || code;
}
