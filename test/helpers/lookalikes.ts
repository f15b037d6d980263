// Look-alike usernames for property tests (docs/decisions/007-usernames.md, "Look-alikes"): an
// original Latin name and a variant made from it by the transformations an impersonator uses.
import fc from 'fast-check';

/** Latin letters and the letter of another script that looks the same. */
const SWAPS = {
  // Whole-script confusables in capitals: "ТОРЕХА" for "topexa".
  cyrillicCaps: { a: 'А', b: 'В', c: 'С', e: 'Е', h: 'Н', i: 'І', j: 'Ј', k: 'К', m: 'М', o: 'О', p: 'Р', s: 'Ѕ', t: 'Т', x: 'Х', y: 'Ү' },
  greekCaps: { a: 'Α', b: 'Β', e: 'Ε', h: 'Η', i: 'Ι', k: 'Κ', m: 'Μ', n: 'Ν', o: 'Ο', p: 'Ρ', t: 'Τ', x: 'Χ', y: 'Υ', z: 'Ζ' },
  // And in lower case: "рауоаѕ" for "payoas".
  cyrillic: { a: 'а', c: 'с', d: 'ԁ', e: 'е', h: 'һ', i: 'і', j: 'ј', o: 'о', p: 'р', q: 'ԛ', s: 'ѕ', w: 'ԝ', x: 'х', y: 'у' },
  greek: { a: 'α', i: 'ι', o: 'ο', p: 'ρ', u: 'υ', v: 'ν', y: 'γ' },
} as const satisfies Record<string, Record<string, string>>;

export type LookAlikeScript = 'latin' | keyof typeof SWAPS;

/** Combining accents ("alíce"); Greek and Cyrillic letters take only those whose scripts include theirs. */
const ACCENTS = ['\u0300', '\u0301', '\u0302', '\u0303', '\u0304', '\u0306', '\u0307', '\u0308', '\u030A', '\u030C', '\u0327', '\u0328'];
const GREEK_CYRILLIC_ACCENTS = ['\u0300', '\u0301', '\u0304', '\u0306', '\u0308', '\u0327', '\u0328'];
// 'l' more often, so that its case changes (l -> I) come up in most names.
const LATIN = [...'abcdefghijklmnopqrstuvwxyz', 'l', 'l', 'l', 'l'];

export interface LookAlike {
  script: LookAlikeScript;
  letters: string[];
  /** Per letter, Latin only: an l becomes l, I or L; any other letter but i may be capitalised. */
  cases: number[];
  /** Per gap between letters: a separator inserted, or none. */
  separators: string[];
  /** Per letter: an accent added, or none. */
  accents: string[];
}

const alphabet = (script: LookAlikeScript) => (script === 'latin' ? LATIN : Object.keys(SWAPS[script]));

export const lookAlikeArb: fc.Arbitrary<LookAlike> = fc
  .constantFrom<LookAlikeScript>('latin', 'latin', 'cyrillicCaps', 'greekCaps', 'cyrillic', 'greek')
  .chain((script) => fc.record({ script: fc.constant(script), letters: fc.array(fc.constantFrom(...alphabet(script)), { minLength: 3, maxLength: 8 }) }))
  .chain(({ script, letters }) =>
    fc.record({
      script: fc.constant(script),
      letters: fc.constant(letters),
      cases: fc.array(fc.nat(2), { minLength: letters.length, maxLength: letters.length }),
      separators: fc.array(fc.constantFrom('', '', '.', '_', '-'), { minLength: letters.length - 1, maxLength: letters.length - 1 }),
      accents: fc.array(fc.constantFrom('', '', ...(script === 'latin' ? ACCENTS : GREEK_CYRILLIC_ACCENTS)), { minLength: letters.length, maxLength: letters.length }),
    }),
  );

/** The original (lower-case Latin) and its look-alike, both ending in `suffix` (digits). */
export function lookAlikePair(sample: LookAlike, suffix = ''): { original: string; variant: string } {
  const swap: Record<string, string> | undefined = sample.script === 'latin' ? undefined : SWAPS[sample.script];
  let variant = '';
  sample.letters.forEach((letter, i) => {
    let ch: string;
    if (swap) ch = swap[letter] ?? letter;
    else if (letter === 'l') ch = ['l', 'I', 'L'][sample.cases[i] ?? 0] ?? 'l';
    // A capital i would read as l: that is another name ("MIa" is not "mia"), not a case change.
    else ch = letter !== 'i' && sample.cases[i] === 1 ? letter.toUpperCase() : letter;
    variant += ch + (sample.accents[i] ?? '') + (sample.separators[i] ?? '');
  });
  return { original: sample.letters.join('') + suffix, variant: variant + suffix };
}
