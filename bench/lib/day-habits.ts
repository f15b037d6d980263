// The habits of the day-in-the-life scenario (bench/day.ts): what one daily active person asks
// of VID in a day, each habit's rate an assumption stated here and in docs/performance.md ("A day
// in the life"). A day-step plays a population's busiest hour at its real rate: the app's habits
// crowd into that hour (BUSIEST_HOUR_SHARE of the day's use), the phone's address book polls
// evenly all day long. Change a figure here and the docs' table with it.

/** One habit: its rate per person per day and why that figure. */
export interface Habit {
  name: string;
  perDay: number;
  /** true: spread evenly over the day (a timer on the phone); false: follows the person's app use. */
  flat: boolean;
  why: string;
}

/** The share of a day's app use in its busiest hour (an even spread would be 1/24 ≈ 4%). */
export const BUSIEST_HOUR_SHARE = 0.1;
/** Seconds the app stays open per opening (its live stream is held that long). */
export const SESSION_SECONDS = 90;
/** Contact cards the app revalidates per opening (If-None-Match; 304 unless the card changed). */
export const CARDS_PER_OPEN = 3;
/** People each person follows (and is followed by): whose edits reach their cards and address book. */
export const FOLLOWS = 20;
/** The access token's lifetime the renewals follow (the service's default, ACCESS_TOKEN_TTL_S). */
export const ACCESS_TOKEN_SECONDS = 600;
/** The address book's CTag poll interval (iOS and macOS "every 15 minutes"). */
export const CTAG_POLL_SECONDS = 15 * 60;
/** The node's memory budget streams are weighed against (docs/deploy.md: "Give a container 256 MB"). */
export const MEMORY_BUDGET_BYTES = 256 * 1024 * 1024;

const OPENS_PER_DAY = 8;

export const HABITS = {
  open: { name: 'opening the app: GET /me, then 3 contact cards revalidated, a live stream opened', perDay: OPENS_PER_DAY, flat: false, why: 'a few glances a day' },
  renew: {
    name: 'token renewal (POST /auth/token/renew)',
    // A session opened more than a token's lifetime after the last one starts with a renewal, and a
    // session longer than the lifetime renews within it.
    perDay: OPENS_PER_DAY * (1 + SESSION_SECONDS / ACCESS_TOKEN_SECONDS),
    flat: false,
    why: `one when the app opens (the ${ACCESS_TOKEN_SECONDS / 60}-minute token has lapsed since the last use), plus one per ${ACCESS_TOKEN_SECONDS / 60} minutes open`,
  },
  edit: { name: `field edit (PATCH /me/fields/{id}), fanned out to ${FOLLOWS} followers`, perDay: 2, flat: false, why: '"a few a day": a status, a number, an address' },
  login: { name: 'passkey login on a new device (begin + finish)', perDay: 1 / 30, flat: false, why: 'a new phone, browser or reinstall about once a month' },
  ctag: { name: 'address book CTag poll (PROPFIND getctag, Basic auth)', perDay: 86_400 / CTAG_POLL_SECONDS, flat: true, why: `every ${CTAG_POLL_SECONDS / 60} minutes, day and night, on every person's phone` },
} satisfies Record<string, Habit>;

/** The request classes a day-step times, each with its own p99. */
export const CLASSES = ['me', 'card', 'stream', 'renew', 'edit', 'login-begin', 'login-finish', 'ctag', 'sync'] as const;
export type RequestClass = (typeof CLASSES)[number];

/** Events a second of each kind for a population of `people`, in its busiest hour. */
export interface DayRates {
  open: number;
  renew: number;
  edit: number;
  login: number;
  ctag: number;
  /** Live streams held at once: the people with the app open. */
  streams: number;
}

export function ratesFor(people: number): DayRates {
  const perSecond = (habit: Habit) => (people * habit.perDay * (habit.flat ? 1 / 24 : BUSIEST_HOUR_SHARE)) / 3600;
  return {
    open: perSecond(HABITS.open),
    renew: perSecond(HABITS.renew),
    edit: perSecond(HABITS.edit),
    login: perSecond(HABITS.login),
    ctag: perSecond(HABITS.ctag),
    streams: Math.round(people * shareWithAppOpen()),
  };
}

/** The share of people with the app open in the busiest hour (Little's law: openings a second × seconds each lasts). */
export function shareWithAppOpen(): number {
  return ((HABITS.open.perDay * BUSIEST_HOUR_SHARE) / 3600) * SESSION_SECONDS;
}

/** The habits as markdown rows (the printed table and docs/performance.md say the same). */
export function habitRows(): string[] {
  const rows = Object.values(HABITS).map((h: Habit) => `| ${h.name} | ${h.perDay.toFixed(h.perDay < 1 ? 3 : 1)} | ${h.flat ? 'evenly over 24 h' : `${(BUSIEST_HOUR_SHARE * 100).toFixed(0)}% in the busiest hour`} | ${h.why} |`);
  return [
    '| habit (per daily active person) | per day | when | why |',
    '|---|---:|---|---|',
    ...rows,
    `| address book sync (REPORT sync-collection) | when the CTag moved | with the polls | one of the ${FOLLOWS} people followed edited since the last poll |`,
    `| live stream (GET /events/stream) held | ${SESSION_SECONDS} s per opening | with the openings | the app open in the foreground |`,
  ];
}
