// A screen loaded when it is first shown: the first download holds the frame and the core only.
// While offline a screen not loaded yet says so, and loads as soon as the server answers again.
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { online } from '../core/client.js';
import { useValue } from '../core/state.js';
import { Failed, Skeleton } from './layout.js';

export function lazy<P extends object = object>(load: () => Promise<{ default: ComponentType<P> }>): ComponentType<P> {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<ComponentType<P>> | undefined;
  const start = () => (loading ??= load().then((module) => (loaded = module.default), (error: unknown) => {
    loading = undefined;
    throw error;
  }));
  return function Lazy(props: P) {
    const [, setReady] = useState(0);
    const [failed, setFailed] = useState<unknown>(undefined);
    const back = useValue(online);
    useEffect(() => {
      if (loaded) return;
      let left = false;
      start().then(() => left || setReady(1), (error: unknown) => left || setFailed(error));
      return () => {
        left = true;
      };
    }, [back]);
    if (loaded) {
      const Screen = loaded;
      return <Screen {...props} />;
    }
    return failed !== undefined && !back ? <Failed error={failed} /> : <Skeleton lines={4} />;
  };
}
