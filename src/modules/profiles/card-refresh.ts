import type { Clock } from '../../platform/clock.js';
import { txHook } from '../../platform/hooks.js';
import { signal } from '../../platform/signals/signal.js';
import type { Tx } from '../../platform/store/store.js';
import { cardContent, cardTag, renderCard } from './card.js';
import type { ExposedField } from './queries.js';
import type { ProfileRepository } from './views.js';

/**
 * Keeping cards current: every change that can alter what a profile shows re-renders its card in
 * the same transaction; the card's `updated_at` moves only when what it shows changed (card.ts),
 * and `cardsChanged` tells who follows (subscriptions, the address book).
 */
export function createCardRefresh(deps: { db: ProfileRepository; clock: Clock }) {
  const { db, clock } = deps;
  const cardsChanged = txHook<{ accountId: string; profileIds: string[] }>();

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

  /**
   * A card from another region (PRODUCT §10, decision 352): the copy its owner's region sent of
   * one of their profiles, kept under the same id on the owner's stand-in account. Stored as sent
   * (the owner's region rendered it; this one adds the owner's region to its `owner`), and only
   * when newer than the copy held: a delivery may come twice or late. A change tells followers
   * here as an edit of a card of this region does (cardsChanged), so their feeds, streams and
   * address books read it unchanged. Refused (false) when the id is another account's profile.
   */
  async function storeCopy(tx: Tx, ownerId: string, region: string, copy: { id: string; card_json: string; card_hash: string; card_updated_at: number }): Promise<boolean> {
    const q = db.in(tx);
    const held = await q.profiles.cardById(copy.id);
    if (held && held.account_id !== ownerId) return false;
    if (held && (held.card_updated_at > copy.card_updated_at || held.card_hash === copy.card_hash)) return true;
    const card = JSON.parse(copy.card_json) as { owner: Record<string, unknown> };
    const json = JSON.stringify({ ...card, owner: { ...card.owner, region } });
    const columns = { card_json: json, card_hash: copy.card_hash, card_etag: cardTag(json), card_updated_at: copy.card_updated_at };
    if (held) await q.profiles.setCard(copy.id, columns);
    else {
      const now = clock.now();
      // Nobody here names or lists a copy: its name is its id, unique per stand-in, and it is never public.
      await q.profiles.insert({ id: copy.id, account_id: ownerId, name: copy.id, name_key: copy.id, description: null, public: 0, version: 1, created_at: now, updated_at: now, ...columns });
    }
    await cardsChanged.run(tx, { accountId: ownerId, profileIds: [copy.id] });
    return true;
  }

  return {
    followChange,
    refreshCards,
    storeCopy,
    /** A stand-in's copies but those its followers here still receive (`keep`): the rest are no longer anyone's to see here. */
    dropCopies: (tx: Tx, ownerId: string, keep: readonly string[]): Promise<number> => db.in(tx).profiles.removeAllBut(ownerId, keep),
    /** A profile's card as stored, with its owner: what a delivery to another region carries. */
    cardForDelivery: (tx: Tx, profileId: string) => db.in(tx).profiles.cardById(profileId),
    /** Subscribe to: cards of these profiles now show something else. */
    onCardsChanged: cardsChanged.subscribe,
  };
}
