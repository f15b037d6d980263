// Types of scripts/build.mjs (plain JavaScript, so `npm start` checks without starting a compiler).
export interface BuildTarget {
  name: string;
  /** For people: "the web app". */
  what: string;
  /** The file whose absence means "never built" (relative to the root). */
  output: string;
  /** Files and folders (relative to the root) whose contents the output is built from. */
  inputs: string[];
  /** Which files under `inputs` count (tests do not). */
  keep(path: string): boolean;
  /** node's arguments that build it, run in the root. */
  command: string[];
}

export const TARGETS: BuildTarget[];

export function build(options?: {
  root?: string;
  targets?: BuildTarget[];
  mode?: 'all' | 'if-stale' | 'check';
  say?: (line: string) => void;
}): string[];
