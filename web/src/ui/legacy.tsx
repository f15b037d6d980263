// Draws a screen written before the component rewrite (a View that builds its own DOM) inside
// the component tree, and hands it the signals it listens for, until it is ported.
import { useEffect, useRef } from 'preact/hooks';
import type { View } from '../app.js';
import { onSignal } from '../core/live.js';
import { SIGNAL_RESOURCES } from '../../../client/src/index.js';
import type { SignalKind } from '../../../client/src/index.js';

const ALL = Object.keys(SIGNAL_RESOURCES) as SignalKind[];

export function Legacy({ load }: { load: () => Promise<View> }) {
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let view: View | undefined;
    let left = false;
    const stop = onSignal(ALL, (signal) => void view?.onSignal?.(signal));
    void (async () => {
      const loaded = await load();
      if (left || !root.current) return;
      view = loaded;
      root.current.replaceChildren();
      await loaded.render(root.current);
    })();
    return () => {
      left = true;
      stop();
      view?.leave?.();
    };
  }, [load]);
  return (
    <div ref={root} class="legacy">
      <div class="skeleton" aria-hidden="true"><span /><span /><span /></div>
    </div>
  );
}
