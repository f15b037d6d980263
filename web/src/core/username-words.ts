// Why a username cannot be had, said once and plainly: from the check's `reason`, and for an
// invalid name from the rule the server names (its `detail` is for developers; this reads it).
import type { UsernameCheckResult } from '../../../client/src/index.js';

const RULES: [RegExp, (match: RegExpMatchArray) => string][] = [
  [/at least (\d+) characters/, (m) => `Too short: use at least ${m[1]} characters.`],
  [/at most (\d+) characters/, (m) => `Too long: use at most ${m[1]} characters.`],
  [/mixes scripts/, () => 'It mixes alphabets: use letters from one alphabet.'],
  [/whose script is not allowed/, () => 'It has letters usernames cannot use.'],
  [/not allow in identifiers/, () => 'It has a mark or letter usernames cannot use.'],
  [/mixes digits/, () => 'It mixes digits from different numbering systems.'],
  [/which is not allowed/, () => 'Use only letters, digits, dots, dashes and underscores.'],
  [/must start with a letter or digit/, () => 'Start with a letter or a digit.'],
  [/must end with a letter or digit/, () => 'End with a letter or a digit.'],
  [/two punctuation characters/, () => 'Put a letter or digit between dots, dashes and underscores.'],
  [/combining mark/, () => 'An accent cannot follow a dot, dash or underscore.'],
  [/right-to-left/, () => 'A right-to-left name starts with a right-to-left letter and ends with a letter or digit.'],
];

export function usernameWords(result: Pick<UsernameCheckResult, 'available' | 'reason' | 'detail' | 'username'>): string {
  if (result.available) return `“${result.username}” is available.`;
  switch (result.reason) {
    case 'taken': return 'That username is taken.';
    case 'reserved': return 'That username is reserved.';
    case 'confusable': return 'That username looks too much like one someone has already.';
    default: {
      for (const [pattern, say] of RULES) {
        const match = result.detail?.match(pattern);
        if (match) return say(match);
      }
      return 'That username cannot be used.';
    }
  }
}
