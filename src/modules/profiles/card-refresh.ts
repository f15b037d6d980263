import type { Clock } from '../../platform/clock.js';
import { txHook } from '../../platform/hooks.js';
import { signal } from '../../platform/signals/signal.js';
import type { Tx } from '../../platform/store/store.js';
import { cardContent, renderCard } from './card.js';
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

  return {
    followChange,
    refreshCards,
    /** Subscribe to: cards of these profiles now show something else. */
    onCardsChanged: cardsChanged.subscribe,
  };
}
