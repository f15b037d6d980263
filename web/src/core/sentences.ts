// What the first download needs of the message layer (core/messages.ts): the sentences it says at
// once, and the rest of the layer (every refusal code's sentence) loaded the first time something
// fails, so its table stays out of the first download. Being offline is said without it: the
// table may not be reachable then either.
import { isProblem, VidNetworkError } from '../../../client/src/index.js';

export { LOCKED, OFFLINE } from './plain-words.js';
export type { BoxWords, Words } from './plain-words.js';
import { OFFLINE } from './plain-words.js';
import type { BoxWords, Words } from './plain-words.js';

const UNKNOWN = 'Something went wrong. Try again.';

/** A failure that says the server could not be reached (a network error, a chunk not loaded). */
export const unreachable = (error: unknown): boolean => error instanceof VidNetworkError || (error instanceof TypeError && !isProblem(error));

type Layer = typeof import('./messages.js');
let layer: Layer | undefined;
let loading: Promise<Layer> | undefined;
/** The message layer, loaded once (tried again after a failed load). */
export const loadMessages = (): Promise<Layer> =>
  (loading ??= import('./messages.js').then((module) => (layer = module), (error: unknown) => {
    loading = undefined;
    throw error;
  }));

/** The words for a failure (core/messages.ts `words`), once the layer has loaded. */
export async function wordsFor(error: unknown, boxes?: Record<string, BoxWords>): Promise<Words> {
  if (unreachable(error)) return { message: OFFLINE, boxes: {} };
  try {
    return (await loadMessages()).words(error, boxes);
  } catch {
    return { message: UNKNOWN, boxes: {} };
  }
}

/** One sentence for a failure now, or undefined while the layer loads (then `loadMessages`). */
export const sayNow = (error: unknown): string | undefined => (unreachable(error) ? OFFLINE : layer?.say(error));
