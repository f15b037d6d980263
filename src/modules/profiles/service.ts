import type { AuthContext } from '../../platform/caller.js';
import type { Clock } from '../../platform/clock.js';
import { noneMatchHolds } from '../../platform/etag.js';
import { createPublicCardCache } from './public-card-cache.js';
import type { Conditional } from '../../platform/etag.js';
import { refuse, validationFailed } from '../../platform/errors.js';
import type { FieldError } from '../../platform/errors.js';
import { txHook } from '../../platform/hooks.js';
import { newId } from '../../platform/ids.js';
import { signal } from '../../platform/signals/signal.js';
import type { accountQueries } from '../../platform/store/accounts.js';
import { keysetPages, listPosition, page, pageOfList } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import { uniqueViolation } from '../../platform/store/store.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import { cleanText } from '../../platform/text.js';
import { cardAsOf, cardChanges, cardContent, cardEtag, contentOf, renderCard } from './card.js';
import { cardToVcard, uidFor, vcardPhotoIdOf } from './vcard.js';
import type { VcardVersion } from './vcard.js';
import type { ExposedField, ExposureRecord, exposureQueries, ProfileRow, profileQueries } from './queries.js';

export const PROFILE_LIMITS = { perAccount: 20, nameLength: 64, descriptionLength: 280, labelLength: 64 } as const;

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
const notFound = () => refuse('profile_not_found', 'you have no profile with this id');
const nameKey = (name: string) => name.normalize('NFKC').toLowerCase();
/** An exposures page ends at (position, field id). */
const EXPOSURE_CURSOR = listPosition(['number', 'string']);

/**
 * Profiles (PRODUCT §3): named views of the owner's fields. Every change that can alter what a
 * profile shows re-renders its card in the same transaction; the card's `updated_at` moves only
 * when what it shows changed (card.ts), and `cardsChanged` tells who follows (subscriptions).
 */
export function createProfileService(deps: {
  db: RepositoryOf<{ profiles: typeof profileQueries; exposures: typeof exposureQueries; accounts: typeof accountQueries }>;
  clock: Clock;
  /** Whether the account holds a field, in the caller's transaction (the fields service). */
  ownsField: (tx: Tx, accountId: string, fieldId: string) => Promise<boolean>;
  /** The 256 px JPEGs of photos by id (the photos service): a vCard carries its card's photo inline. */
  vcardPhotos: (ids: readonly string[]) => Promise<ReadonlyMap<string, Buffer>>;
  /** Subscribers per profile (subscriptions, once they exist); 0 otherwise. */
  subscriberCounts?: (accountId: string, profileIds: string[]) => Promise<Map<string, number>>;
}) {
  const { db, clock } = deps;
  const publicCards = createPublicCardCache({ now: clock.now });
  const removing = txHook<ProfileRemoval>();
  const cardsChanged = txHook<{ accountId: string; profileIds: string[] }>();
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

  /** A lost race on a unique index, told as the refusal the checks above give. */
  function raceRefusal(error: unknown): unknown {
    const violation = uniqueViolation(error);
    if (!violation) return error;
    return violation.constraint.includes('name') ? refuse('profile_name_taken', 'you have a profile with this name already') : refuse('public_profile_exists', 'another of your profiles is public; make it private first');
  }

  /**
   * Re-renders every card of the account from the exposures and fields as they are now, in the
   * caller's transaction; stores those whose content changed and returns their ids.
   */
  async function refreshCards(tx: Tx, accountId: string): Promise<string[]> {
    const q = db.in(tx);
    const owner = await q.accounts.findById(accountId);
    if (!owner) return [];
    const states = await q.profiles.cardStates(accountId);
    if (states.length === 0) return [];
    const exposed = new Map<string, ExposedField[]>();
    for (const row of await q.profiles.exposedFields(accountId)) {
      const list = exposed.get(row.profile_id) ?? [];
      list.push(row);
      exposed.set(row.profile_id, list);
    }
    const now = clock.now();
    const changed: string[] = [];
    for (const state of states) {
      const card = renderCard(cardContent(owner, exposed.get(state.id) ?? []), now, { hash: state.card_hash, updatedAt: state.card_updated_at, json: state.card_json });
      if (card.hash === state.card_hash) continue;
      await q.profiles.setCard(state.id, { card_json: card.json, card_hash: card.hash, card_etag: card.etag, card_updated_at: card.updatedAt });
      changed.push(state.id);
    }
    if (changed.length) await cardsChanged.run(tx, { accountId, profileIds: changed });
    return changed;
  }

  /** What changed a card outside this module (a field, the display name): re-render, tell the owner's devices. */
  async function followChange(tx: Tx, change: { accountId: string }): Promise<void> {
    if ((await refreshCards(tx, change.accountId)).length) await signal(tx, change.accountId, 'profiles.changed');
  }

  async function mustFind(tx: Tx, accountId: string, id: string): Promise<ProfileRow> {
    const row = await db.in(tx).profiles.find(accountId, id);
    if (!row) throw notFound();
    return row;
  }

  const exposureView = (row: ExposureRecord, position: number): ExposureView => ({ field_id: row.field_id, label: row.label, position, schema_version: 1 });

  /** A profile as its owner sees it; `current`: a keyed request answers with what it just wrote, not yet committed. */
  async function get(auth: AuthContext, id: string): Promise<ProfileView> {
    const row = await db.current.profiles.find(auth.account.id, id);
    if (!row) throw notFound();
    return (await views(auth.account.id, [row]))[0]!;
  }

  return {
    followChange,
    refreshCards,
    /**
     * The card builder's variants (card.ts), for a module that serves a profile's rendered card
     * otherwise than as stored (contacts: a card seen since a move, its vCards): the bytes and
     * the tags are made there, never spliced by the caller.
     */
    cardAsOf,
    cardEtag,
    /** What changed for someone who saw the card `before` (stored JSON) and now sees `after`: kinds of detail (card.ts). */
    changesBetween: (before: string, after: string): string[] => cardChanges(contentOf(before), contentOf(after)),
    /**
     * A rendered card (its stored JSON, parsed) as a vCard whose UID is the owner's permanent id;
     * with `rfc9554` (4.0 only) RFC 9554's properties instead of their X- forms (vcard.ts).
     */
    vcardOf: (card: Parameters<typeof cardToVcard>[0], ownerId: string, version: VcardVersion, options: { rfc9554?: boolean; photos?: ReadonlyMap<string, Buffer> } = {}): string =>
      cardToVcard(card, { version, uid: uidFor(ownerId), rfc9554: options.rfc9554, photos: options.photos }),
    /** The photos some cards' vCards carry, read at once (a page of an address book is one read). */
    vcardPhotosOf: (cards: ReadonlyArray<Parameters<typeof cardToVcard>[0]>): Promise<ReadonlyMap<string, Buffer>> => deps.vcardPhotos(cards.flatMap((card) => vcardPhotoIdOf(card) ?? [])),
    /** Subscribe to: a profile is about to be deleted (with move_to, or not). */
    onRemoving: removing.subscribe,
    /**
     * Before a grant names a profile (an approval, a move, a share link), in the grant's
     * transaction: whether the account has it, kept from a concurrent delete until the grant
     * commits. The caller takes the owner's account lock (its signal) first, as the delete does.
     */
    holds: async (tx: Tx, accountId: string, profileId: string): Promise<boolean> => Boolean(await db.in(tx).profiles.lock(accountId, profileId, 'share')),
    /** Subscribe to: cards of these profiles now show something else. */
    onCardsChanged: cardsChanged.subscribe,
    /** Where subscriber counts come from, once subscriptions exist. */
    countSubscribersWith(count: (accountId: string, profileIds: string[]) => Promise<Map<string, number>>) {
      subscriberCounts = count;
    },

    /** Every profile with its exposures and the card its audience sees (the account export). */
    async *exportPages(accountId: string): AsyncIterable<object[]> {
      for await (const rows of keysetPages((after, limit) => db.direct.profiles.list(accountId, after, limit), (row) => row)) {
        const exported = [];
        for (const profile of await views(accountId, rows)) {
          const exposures = (await db.direct.exposures.list(profile.id)).map(exposureView);
          const card = await db.direct.profiles.cardJson(accountId, profile.id);
          exported.push({ ...profile, exposures, card: card === undefined ? null : JSON.parse(card) });
        }
        yield exported;
      }
    },
    /** The purge (PRODUCT §8): no hooks run, the subscriptions' side is ended by the contacts module first. */
    async erase(tx: Tx, accountId: string): Promise<void> {
      await db.in(tx).profiles.removeAll(accountId);
    },

    async list(auth: AuthContext, cursor: string | undefined, limit: number): Promise<Page<ProfileView>> {
      const rows = await page((after, size) => db.direct.profiles.list(auth.account.id, after, size), cursor, limit, (row) => row);
      return { ...rows, data: await views(auth.account.id, rows.data) };
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

    /** A page of the fields a profile shows, in the profile's order (position, then field id). */
    async exposures(auth: AuthContext, profileId: string, cursor: string | undefined, limit: number): Promise<Page<ExposureView>> {
      await get(auth, profileId);
      const all = (await db.direct.exposures.list(profileId)).map(exposureView);
      return pageOfList(all, cursor, limit, (exposure) => [exposure.position, exposure.field_id], EXPOSURE_CURSOR);
    },

    /**
     * PUT an exposure: puts the field into the profile (at `position`, default last) or changes
     * its label and place. Positions are 0…n-1 in the profile's order.
     */
    async putExposure(auth: AuthContext, profileId: string, fieldId: string, input: { label?: string | null; position?: number }): Promise<{ created: boolean; exposure: ExposureView }> {
      const accountId = auth.account.id;
      let label: string | null | undefined;
      if (input.label !== undefined) {
        const cleaned = input.label === null ? undefined : cleanText(input.label, { path: '/label', max: PROFILE_LIMITS.labelLength });
        if (cleaned && !cleaned.ok) throw validationFailed([cleaned.error]);
        label = cleaned?.text || null;
      }
      return db.transaction(async (q, tx) => {
        await signal(tx, accountId, 'profiles.changed');
        await mustFind(tx, accountId, profileId);
        // Another account's field answers like an unknown one (PRODUCT: 404, never 403).
        if (!(await deps.ownsField(tx, accountId, fieldId))) throw refuse('field_not_found', 'you have no field with this id');
        const current = await q.exposures.list(profileId);
        const at = current.findIndex((e) => e.field_id === fieldId);
        const created = at < 0;
        const last = created ? current.length : current.length - 1;
        const position = input.position ?? (created ? current.length : at);
        if (position > last) {
          throw refuse('validation_failed', { detail: `position must be between 0 and ${last}`, errors: [{ path: '/position', code: 'position_out_of_range', message: `between 0 and ${last}` }] });
        }
        const order = current.map((e) => e.field_id).filter((id) => id !== fieldId);
        order.splice(position, 0, fieldId);
        if (created) {
          await q.exposures.insert({ profile_id: profileId, field_id: fieldId, account_id: accountId, label: label ?? null, position, created_at: clock.now() });
        } else if (label !== undefined) {
          await q.exposures.setLabel(profileId, fieldId, label);
        }
        await q.exposures.reorder(profileId, order);
        await q.profiles.touch(accountId, profileId, clock.now());
        await refreshCards(tx, accountId);
        const row = (await q.exposures.list(profileId)).find((e) => e.field_id === fieldId)!;
        return { created, exposure: exposureView(row, position) };
      });
    },

    async removeExposure(auth: AuthContext, profileId: string, fieldId: string): Promise<void> {
      const accountId = auth.account.id;
      await db.transaction(async (q, tx) => {
        await signal(tx, accountId, 'profiles.changed');
        await mustFind(tx, accountId, profileId);
        if (!(await q.exposures.remove(profileId, fieldId))) throw refuse('exposure_not_found', 'this profile does not show this field');
        await q.exposures.reorder(profileId, (await q.exposures.list(profileId)).map((e) => e.field_id));
        await q.profiles.touch(accountId, profileId, clock.now());
        await refreshCards(tx, accountId);
      });
    },

    /**
     * The card exactly as the profile's audience receives it (rendered JSON and its ETag). A
     * conditional read whose tag still holds reads only the tag: no JSON when 304 will answer.
     */
    async preview(auth: AuthContext, profileId: string, ifNoneMatch?: string): Promise<Conditional> {
      if (ifNoneMatch) {
        const tag = await db.direct.profiles.cardTag(auth.account.id, profileId);
        if (!tag) throw notFound();
        if (noneMatchHolds(ifNoneMatch, tag.card_etag)) return { etag: tag.card_etag };
      }
      const card = await db.direct.profiles.card(auth.account.id, profileId);
      if (!card) throw notFound();
      return { json: card.card_json, etag: card.card_etag };
    },

    /**
     * The card of the account's public profile (conditional as preview); undefined when there is
     * none. Read through this node's cache of public cards (public-card-cache.ts): an entry is
     * only ever what the rule answered, forgotten on any change of its owner.
     */
    async publicCard(canonicalUsername: string, ifNoneMatch?: string): Promise<(Conditional & { accountId: string }) | undefined> {
      const cached = publicCards.get(canonicalUsername);
      if (cached) return noneMatchHolds(ifNoneMatch, cached.etag) ? { accountId: cached.accountId, etag: cached.etag } : cached;
      const mark = publicCards.mark();
      const card = await db.direct.profiles.publicCard(canonicalUsername);
      if (!card) return undefined;
      const read = { accountId: card.account_id, json: card.card_json, etag: card.card_etag };
      publicCards.put(canonicalUsername, read, mark);
      return noneMatchHolds(ifNoneMatch, read.etag) ? { accountId: read.accountId, etag: read.etag } : read;
    },

    /** The stored JSON of the account's public card, if it has one anyone may see now. */
    publicCardJsonOf: async (accountId: string): Promise<string | undefined> => (await db.direct.profiles.publicCardOf(accountId))?.card_json ?? undefined,

    /** Every node hears of every committed signal (wiring.ts): a public card of its account may have changed. */
    forgetPublicCard: (accountId: string): void => publicCards.forget(accountId),
    /** Signals may have been missed (a reconnected listener): no public card held can be trusted. */
    forgetPublicCards: (): void => publicCards.forgetAll(),
  };
}

export type ProfileService = ReturnType<typeof createProfileService>;
