import type { AuthContext } from '../../platform/caller.js';
import { refuse } from '../../platform/errors.js';
import type { accountQueries } from '../../platform/store/accounts.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import type { ExposureRecord, exposureQueries, ProfileRow, profileQueries } from './queries.js';

export const PROFILE_LIMITS = { perAccount: 20, nameLength: 64, descriptionLength: 280, labelLength: 64 } as const;

/** The tables the profile service's parts read and write. */
export type ProfileRepository = RepositoryOf<{ profiles: typeof profileQueries; exposures: typeof exposureQueries; accounts: typeof accountQueries }>;

/** Subscribers per profile of an account (the subscriptions module). */
export type SubscriberCounts = (accountId: string, profileIds: string[]) => Promise<Map<string, number>>;

export interface ProfileView {
  id: string;
  name: string;
  description: string | null;
  public: boolean;
  field_count: number;
  subscriber_count: number;
  created_at: string;
  updated_at: string;
  version: number;
  schema_version: 1;
}

export interface ExposureView {
  field_id: string;
  label: string | null;
  position: number;
  schema_version: 1;
}

export interface ProfileInput {
  name: string;
  description?: string | null;
  public?: boolean;
}

/** A profile is about to go; listeners move or refuse what depends on it (subscriptions). */
export interface ProfileRemoval {
  accountId: string;
  profileId: string;
  moveTo?: string;
}

const iso = (t: number) => new Date(t).toISOString();
export const notFound = () => refuse('profile_not_found', 'you have no profile with this id');
export const exposureView = (row: ExposureRecord, position: number): ExposureView => ({ field_id: row.field_id, label: row.label, position, schema_version: 1 });

/**
 * Profiles as their owner reads them (with subscriber counts), and the owner's profile by id: what
 * the CRUD, the exposures and the export share.
 */
export function createProfileViews(deps: { db: ProfileRepository; subscriberCounts?: SubscriberCounts }) {
  const { db } = deps;
  let subscriberCounts = deps.subscriberCounts;

  async function views(accountId: string, rows: ProfileRow[]): Promise<ProfileView[]> {
    const counts = subscriberCounts && rows.length ? await subscriberCounts(accountId, rows.map((r) => r.id)) : new Map<string, number>();
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      description: row.description,
      public: row.public === 1,
      field_count: row.field_count,
      subscriber_count: counts.get(row.id) ?? 0,
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
      version: row.version,
      schema_version: 1,
    }));
  }

  return {
    views,
    /** A profile as its owner sees it; `current`: a keyed request answers with what it just wrote, not yet committed. */
    async get(auth: AuthContext, id: string): Promise<ProfileView> {
      const row = await db.current.profiles.find(auth.account.id, id);
      if (!row) throw notFound();
      return (await views(auth.account.id, [row]))[0]!;
    },
    async mustFind(tx: Tx, accountId: string, id: string): Promise<ProfileRow> {
      const row = await db.in(tx).profiles.find(accountId, id);
      if (!row) throw notFound();
      return row;
    },
    /** Where subscriber counts come from, once subscriptions exist. */
    countSubscribersWith(count: SubscriberCounts) {
      subscriberCounts = count;
    },
  };
}

export type ProfileViews = ReturnType<typeof createProfileViews>;
