// The app's own state (where it is, the session, whether the server answers, passing notes):
// values that say when they change, read by components through useValue, as useResource reads
// the cache. Setting the same value again tells nobody.
import { useEffect, useState } from 'preact/hooks';

export interface State<T> {
  value: T;
  /** Calls `listener` after each change until the returned function is called. */
  watch: (listener: () => void) => () => void;
}

export function state<T>(initial: T): State<T> {
  let current = initial;
  const listeners = new Set<() => void>();
  return {
    get value() {
      return current;
    },
    set value(next: T) {
      if (Object.is(next, current)) return;
      current = next;
      for (const listener of [...listeners]) listener();
    },
    watch(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

/** The value now, and a redraw of the component whenever it changes. */
export function useValue<T>(of: State<T>): T {
  const [, setTick] = useState(0);
  const value = of.value;
  useEffect(() => {
    const redraw = () => setTick((tick) => tick + 1);
    // A change between this draw and now is not missed.
    if (!Object.is(of.value, value)) redraw();
    return of.watch(redraw);
  }, [of]);
  return value;
}
