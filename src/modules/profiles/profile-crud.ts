import type { AuthContext } from '../../platform/caller.js';
import type { Clock } from '../../platform/clock.js';
import { refuse, validationFailed } from '../../platform/errors.js';
import type { FieldError } from '../../platform/errors.js';
import { txHook } from '../../platform/hooks.js';
import { newId } from '../../platform/ids.js';
import { signal } from '../../platform/signals/signal.js';
import { page } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import { uniqueViolation } from '../../platform/store/store.js';
import type { Tx } from '../../platform/store/store.js';
import { cleanText } from '../../platform/text.js';
import { cardContent, renderCard } from './card.js';
import { notFound, PROFILE_LIMITS } from './views.js';
import type { ProfileInput, ProfileRemoval, ProfileRepository, ProfileView, ProfileViews } from './views.js';

const nameKey = (name: string) => name.normalize('NFKC').toLowerCase();

function clean(input: { name?: string; description?: string | null }): { name?: string; description?: string | null } {
  const errors: FieldError[] = [];
  const out: { name?: string; description?: string | null } = {};
  if (input.name !== undefined) {
    const name = cleanText(input.name, { path: '/name', max: PROFILE_LIMITS.nameLength });
    if (!name.ok) errors.push(name.error);
    else if (!name.text) errors.push({ path: '/name', code: 'text_empty', message: 'a profile needs a name' });
    else out.name = name.text;
  }
  if (input.description !== undefined) {
    const description = input.description === null ? undefined : cleanText(input.description, { path: '/description', max: PROFILE_LIMITS.descriptionLength, multiline: true });
    if (description && !description.ok) errors.push(description.error);
    else out.description = description?.text || null;
  }
  if (errors.length) throw validationFailed(errors);
  return out;
}

/** A lost race on a unique index, told as the refusal the clash check gives. */
function raceRefusal(error: unknown): unknown {
  const violation = uniqueViolation(error);
  if (!violation) return error;
  return violation.constraint.includes('name') ? refuse('profile_name_taken', 'you have a profile with this name already') : refuse('public_profile_exists', 'another of your profiles is public; make it private first');
}

/** Profiles themselves (PRODUCT §3): list, read, create, rename, delete, and their grants' check. */
export function createProfileCrud(deps: { db: ProfileRepository; clock: Clock; views: ProfileViews; refreshCards: (tx: Tx, accountId: string) => Promise<string[]> }) {
  const { db, clock, views, refreshCards } = deps;
  const { get, mustFind } = views;
  const removing = txHook<ProfileRemoval>();

  /** Refuses a name another profile has (ignoring case) or a second public profile. */
  async function refuseClash(tx: Tx, accountId: string, changes: { name_key?: string; public?: number }, exceptId?: string): Promise<void> {
    const q = db.in(tx);
    const wantsPublic = changes.public === 1;
    if (changes.name_key === undefined && !wantsPublic) return;
    const clash = await q.profiles.findClash(accountId, { nameKey: changes.name_key, public: wantsPublic }, exceptId);
    if (!clash) return;
    if (changes.name_key !== undefined && clash.name_key === changes.name_key) throw refuse('profile_name_taken', 'you have a profile with this name already');
    throw refuse('public_profile_exists', 'another of your profiles is public; make it private first');
  }

  return {
    /** Subscribe to: a profile is about to be deleted (with move_to, or not). */
    onRemoving: removing.subscribe,
    /**
     * Before a grant names a profile (an approval, a move, a share link), in the grant's
     * transaction: whether the account has it, kept from a concurrent delete until the grant
     * commits. The caller takes the owner's account lock (its signal) first, as the delete does.
     */
    holds: async (tx: Tx, accountId: string, profileId: string): Promise<boolean> => Boolean(await db.in(tx).profiles.lock(accountId, profileId, 'share')),

    async list(auth: AuthContext, cursor: string | undefined, limit: number): Promise<Page<ProfileView>> {
      const rows = await page((after, size) => db.direct.profiles.list(auth.account.id, after, size), cursor, limit, (row) => row);
      return { ...rows, data: await views.views(auth.account.id, rows.data) };
    },

    get,

    async create(auth: AuthContext, input: ProfileInput): Promise<ProfileView> {
      const accountId = auth.account.id;
      const cleaned = clean({ name: input.name, description: input.description ?? null });
      const now = clock.now();
      const id = newId('prf');
      const empty = renderCard(cardContent(auth.account, []), now);
      try {
        await db.transaction(async (q, tx) => {
          // The signal goes first: it takes the account row's lock, so concurrent creates queue
          // here and the limit and name checks below cannot race.
          await signal(tx, accountId, 'profiles.changed');
          if ((await q.profiles.count(accountId)) >= PROFILE_LIMITS.perAccount) {
            throw refuse('profile_limit', `an account holds at most ${PROFILE_LIMITS.perAccount} profiles; delete one first`);
          }
          const changes = { name_key: nameKey(cleaned.name!), public: input.public ? 1 : 0 };
          await refuseClash(tx, accountId, changes);
          await q.profiles.insert({
            id,
            account_id: accountId,
            name: cleaned.name!,
            name_key: changes.name_key,
            description: cleaned.description ?? null,
            public: changes.public,
            version: 1,
            created_at: now,
            updated_at: now,
            card_json: empty.json,
            card_hash: empty.hash,
            card_etag: empty.etag,
            card_updated_at: now,
          });
          // The owner's display name may have changed since the request read the account.
          await refreshCards(tx, accountId);
        });
      } catch (error) {
        throw raceRefusal(error);
      }
      return get(auth, id);
    },

    async update(auth: AuthContext, id: string, expectedVersion: number, patch: Partial<ProfileInput>): Promise<ProfileView> {
      const accountId = auth.account.id;
      const cleaned = clean({ name: patch.name, description: patch.description });
      const changes = {
        ...(cleaned.name !== undefined ? { name: cleaned.name, name_key: nameKey(cleaned.name) } : {}),
        ...(cleaned.description !== undefined ? { description: cleaned.description } : {}),
        ...(patch.public !== undefined ? { public: patch.public ? 1 : 0 } : {}),
      };
      try {
        await db.transaction(async (q, tx) => {
          await signal(tx, accountId, 'profiles.changed');
          const current = await mustFind(tx, accountId, id);
          if (current.version !== expectedVersion) throw refuse('version_mismatch', 'the profile changed since you read it; fetch it again');
          await refuseClash(tx, accountId, changes, id);
          if (!(await q.profiles.update(accountId, id, expectedVersion, changes, clock.now()))) {
            throw refuse('version_mismatch', 'the profile changed since you read it; fetch it again');
          }
        });
      } catch (error) {
        throw raceRefusal(error);
      }
      return get(auth, id);
    },

    /**
     * Deletes a profile (If-Match). Those who see it (subscribers) move to `moveTo` first; the
     * subscriptions module refuses with 409 profile_in_use when some would be left without one.
     */
    async remove(auth: AuthContext, id: string, expectedVersion: number, moveTo: string | undefined): Promise<void> {
      const accountId = auth.account.id;
      await db.transaction(async (q, tx) => {
        // The account's lock first (the signal), as every grant of a profile takes it first; then
        // the profile's own, so a grant that got it (an approval onto it, a link for it) is
        // committed before the subscribers and links to move are read below.
        await signal(tx, accountId, 'profiles.changed');
        const current = await q.profiles.lock(accountId, id, 'update');
        if (!current) throw notFound();
        if (current.version !== expectedVersion) throw refuse('version_mismatch', 'the profile changed since you read it; fetch it again');
        if (moveTo !== undefined) {
          if (moveTo === id) throw refuse('validation_failed', { detail: 'move_to names the profile being deleted', errors: [{ path: 'querystring:/move_to', code: 'move_to_same', message: 'name another of your profiles' }] });
          await mustFind(tx, accountId, moveTo);
        }
        await removing.run(tx, { accountId, profileId: id, moveTo });
        await q.profiles.remove(accountId, id, expectedVersion);
      });
    },
  };
}
