// Keeps a local copy of every contact's card current (PRODUCT §4, §7: event-then-pull), as one
// use of the resource cache (resources.ts): each active contact's `/contacts/{id}/card` is a
// watched entry, pulled again with If-None-Match on contact.card.changed; on contacts.changed the
// list is read again; after a gap in the stream (a resync) everything is checked again.
import type { Card, Signal } from './api.js';
import type { StreamState } from './events.js';
import type { VidClient } from './client.js';
import { isProblem } from './errors.js';
import { createResourceCache } from './resources.js';
import type { ResourceCache } from './resources.js';

/** How `follow` reports and when it stops. */
export interface ContactCardsOptions {
  /** Stops following; the promise of follow() then resolves. */
  signal?: AbortSignal;
  /** Something changed: `id` is the contact whose card changed, or undefined after a full sync. */
  onChange?: (id: string | undefined) => void | Promise<void>;
  /** The stream's state (`streaming` once it is live), e.g. for a "live" mark beside the list. */
  onStateChange?: (state: StreamState) => void;
}

const CARD_RESOURCE = /^\/contacts\/([^/]+)\/card$/;

/**
 * The contact whose card a signal's `resource` names (`/contacts/{id}/card`, the path of
 * contact.card.changed in the signal catalogue), or undefined for any other resource.
 */
export function contactOfCard(resource: string): string | undefined {
  return CARD_RESOURCE.exec(resource)?.[1];
}

const cardPath = (id: string) => `/contacts/${id}/card`;

/** `cache`: share one with the rest of an app (its entries are then the same). */
/** Every active contact's card, kept current from the event stream (a use of the resource cache). */
export function contactCards(client: Pick<VidClient, 'contacts' | 'events' | 'send'>, options: { cache?: ResourceCache } = {}) {
  const cache = options.cache ?? createResourceCache(client);
  /** The contacts followed, and how to stop watching each one's card. */
  const followed = new Map<string, () => void>();

  const unfollow = (id: string) => {
    followed.get(id)?.();
    followed.delete(id);
    cache.drop(cardPath(id));
  };

  /** Pulls one card (a 304 keeps the copy); a contact that shows no card any more is dropped. */
  async function refresh(id: string): Promise<boolean> {
    const path = cardPath(id);
    const held = cache.peek(path).data !== undefined;
    const changed = await cache.revalidate(path);
    const { error } = cache.peek(path);
    if (isProblem(error) && (error.status === 403 || error.status === 404 || error.status === 410)) {
      unfollow(id);
      return held;
    }
    if (error !== undefined) throw error;
    // Watched, so the cache keeps it (and a shared cache's signals keep it current too).
    if (!followed.has(id)) followed.set(id, cache.watch(path, () => undefined));
    return changed;
  }

  /** Every active contact's card, and none of the others; true when anything held changed. */
  async function sync(): Promise<boolean> {
    const active = new Set<string>();
    let changed = false;
    for await (const contact of client.contacts.list({ status: 'active', limit: 200 })) active.add(contact.id);
    for (const id of [...followed.keys()]) {
      if (active.has(id)) continue;
      unfollow(id);
      changed = true;
    }
    for (const id of active) if (await refresh(id)) changed = true;
    return changed;
  }

  return {
    /** The cards held, by contact id. */
    get cards(): ReadonlyMap<string, Card> {
      const cards = new Map<string, Card>();
      for (const id of followed.keys()) {
        const card = cache.peek<Card>(cardPath(id)).data;
        if (card) cards.set(id, card);
      }
      return cards;
    },
    /** Reads the contact list and every active contact's card again; true when anything changed. */
    sync,
    /** Pulls one contact's card again (a 304 keeps the copy); true when it changed. */
    refresh,

    /** Syncs, then follows the event stream until options.signal aborts. */
    async follow(options: ContactCardsOptions = {}): Promise<void> {
      await sync();
      await options.onChange?.(undefined);
      // A stream without a cursor starts from now: what changed between that first sync and the
      // stream's opening position has no signal here. Once the stream has a position, check once
      // more (a 304 for each card still current).
      let caughtUp = false;
      await client.events.stream({
        signal: options.signal,
        onStateChange: options.onStateChange,
        onCursor: async () => {
          if (caughtUp) return;
          caughtUp = true;
          if (await sync()) await options.onChange?.(undefined);
        },
        onSignal: async (signal: Signal) => {
          if (signal.kind === 'contact.card.changed') {
            const changed = contactOfCard(signal.resource);
            if (changed && (await refresh(changed))) await options.onChange?.(changed);
          } else if (signal.kind === 'contacts.changed') {
            await sync();
            await options.onChange?.(undefined);
          }
        },
        onResync: async () => {
          await sync();
          await options.onChange?.(undefined);
        },
      });
    },
  };
}

/** What `contactCards` answers. */
export type ContactCards = ReturnType<typeof contactCards>;
