// Dates and names as people say them.
/** "12 Mar 2026". */
export const day = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' }) : '';

/** "12 Mar 2026, 14:05". */
export const when = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toLocaleString(undefined, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' }) : '';

const RELATIVE: [Intl.RelativeTimeFormatUnit, number][] = [['year', 31_536_000], ['month', 2_592_000], ['week', 604_800], ['day', 86_400], ['hour', 3_600], ['minute', 60]];

/** "5 minutes ago", "in 3 days", "just now". */
export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  const seconds = (new Date(iso).getTime() - now) / 1000;
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, size] of RELATIVE) if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  return 'just now';
}

export const initials = (name: string): string =>
  [...name.trim().split(/\s+/).slice(0, 2).map((w) => [...w][0] ?? '')].join('').toUpperCase() || '?';
