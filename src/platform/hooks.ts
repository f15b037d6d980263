import type { Tx } from './store/store.js';

/**
 * A change one module announces inside its transaction, for modules built after it to follow
 * in that same transaction (a field edit re-renders the cards that show the field). The
 * announcing module does not know who listens, so module dependencies stay one-way.
 */
export interface TxHook<Change> {
  subscribe(listener: (tx: Tx, change: Change) => Promise<void>): void;
  run(tx: Tx, change: Change): Promise<void>;
}

export function txHook<Change>(): TxHook<Change> {
  const listeners: Array<(tx: Tx, change: Change) => Promise<void>> = [];
  return {
    subscribe: (listener) => void listeners.push(listener),
    async run(tx, change) {
      for (const listener of listeners) await listener(tx, change);
    },
  };
}
