// Line icons for the navigation (24×24, currentColor), hidden from assistive tech: the label says it.
const PATHS: Record<string, string> = {
  account: 'M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zm-7 8a7 7 0 0 1 14 0',
  fields: 'M5 5h14M5 10h14M5 15h9M5 20h6',
  profiles: 'M4 6h16v12H4zM8 11a2 2 0 1 0 0-.01M12 10h5M12 14h5',
  people: 'M9 11a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7zm-6 9a6 6 0 0 1 12 0M16 4.5a3.5 3.5 0 0 1 0 6.5M18 14a6 6 0 0 1 3 6',
  more: 'M5 12h.01M12 12h.01M19 12h.01',
  contacts: 'M6 3h12a1 1 0 0 1 1 1v16a1 1 0 0 1-1 1H6a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1zM12 11a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5zM8 17a4 4 0 0 1 8 0M3 7h2M3 12h2M3 17h2',
  share: 'M12 15V3M8 7l4-4 4 4M5 12v7a1 1 0 0 0 1 1h12a1 1 0 0 0 1-1v-7',
  signin: 'M10 17l5-5-5-5M15 12H3M14 4h5a1 1 0 0 1 1 1v14a1 1 0 0 1-1 1h-5',
  join: 'M7 3h10v18H7zM11 18h2',
  recover: 'M4 12a8 8 0 1 0 3-6.2M4 4v4h4',
};

export function Icon({ name }: { name: string }) {
  return (
    <svg class="icon" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">
      <path d={PATHS[name] ?? PATHS.more} />
    </svg>
  );
}
