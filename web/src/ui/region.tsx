// People of another region (PRODUCT §10, decision 352): wherever the app names a person whose
// region is not the signed-in person's, it says `alice@eu`, so alice@eu and alice@us are never
// taken for one another. A bare name is always this region's, as in the API.
import type { Me } from '../../../client/src/index.js';
import { cache } from '../core/cache.js';

/**
 * A person as the API names one: every person of a list (owner, subscriber, block) carries
 * `region`; a card carries `owner.region` only when its owner lives in another region.
 */
export type Named = { username: string; display_name: string | null; region?: string };

/**
 * The person's region when it is not the signed-in person's (GET /me answers `region`; the app
 * reads /me before it draws any screen of an account, and an account never moves region).
 */
export function elsewhere(who: { region?: string }): string | undefined {
  const own = cache.peek<Me>('/me').data?.region;
  return who.region && who.region !== own ? who.region : undefined;
}

/** "alice" for someone of this region, "alice@eu" for someone of another: the name to follow them by. */
export function handleOf(who: Named): string {
  const region = elsewhere(who);
  return region ? `${who.username}@${region}` : who.username;
}

/** "the EU", "the US": a region as a sentence names it. */
export const regionName = (region: string): string => `the ${region.toUpperCase()}`;

/** "@alice", or "@alice" and a muted "@eu" for someone of another region. */
export function Username({ who }: { who: Named }) {
  const region = elsewhere(who);
  return (
    <>
      @{who.username}
      {region ? <span class="region-tag" data-region={region} title={`Lives in ${regionName(region)} region`}>@{region}</span> : null}
    </>
  );
}
