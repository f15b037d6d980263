/**
 * How a person is named across one operator's regions (PRODUCT §10): `alice@eu` is alice of the
 * EU region; a bare name is this region's. No username contains `@` (the usernames' rules), so
 * the last one splits the two.
 */
export function splitName(typed: string): { username: string; region?: string } {
  const at = typed.lastIndexOf('@');
  if (at <= 0) return { username: typed };
  return { username: typed.slice(0, at), region: typed.slice(at + 1).toLowerCase() };
}

/** `alice@eu`: how a person of `region` is named outside it. */
export const nameInRegion = (username: string, region: string): string => `${username}@${region}`;

/**
 * The canonical name a person is held under here: this region's canonical form of a bare name, or
 * of the name before `@region` followed by it (a person of another region, decision 352). The
 * region part is compared as typed, lowercased: this region's own (`alice@eu` in the EU) is
 * the bare name.
 */
export function canonicalPerson(typed: string, here: string, canonicalOf: (username: string) => string | undefined): string | undefined {
  const name = splitName(typed);
  const canonical = canonicalOf(name.username);
  if (canonical === undefined) return undefined;
  return name.region === undefined || name.region === here ? canonical : nameInRegion(canonical, name.region);
}
