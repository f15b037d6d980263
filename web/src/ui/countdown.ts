import { useEffect, useState } from 'preact/hooks';

/** Whole seconds until `until` (an ISO time), redrawn every second; 0 once it passed or without one. */
export function useSecondsLeft(until: string | undefined): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!until) return undefined;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [until]);
  return until ? Math.max(0, Math.round((Date.parse(until) - now) / 1000)) : 0;
}
