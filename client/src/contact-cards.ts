// Keeps a local copy of every contact's card current (PRODUCT §4, §7: event-then-pull): on
// contact.card.changed the one card is pulled again with If-None-Match; on contacts.changed the
// list is read again; after a gap in the stream (a resync) everything is checked again.
import type { Card, Signal } from './api.js';
import type { HeldCard, VidClient } from './client.js';
import { isProblem } from './errors.js';

export interface ContactCardsOptions {
  /** Stops following; the promise of follow() then resolves. */
  signal?: AbortSignal;
  /** Something changed: `id` is the contact whose card changed, or undefined after a full sync. */
  onChange?: (id: string | undefined) => void | Promise<void>;
}

const CARD_RESOURCE = /^\/contacts\/([^/]+)\/card$/;

/**
 * The contact whose card a signal's `resource` names (`/contacts/{id}/card`, the path of
 * contact.card.changed in the signal catalogue), or undefined for any other resource.
 */
export function contactOfCard(resource: string): string | undefined {
  return CARD_RESOURCE.exec(resource)?.[1];
}

export function contactCards(client: Pick<VidClient, 'contacts' | 'events'>) {
  const held = new Map<string, HeldCard>();

  /** Pulls one card (a 304 keeps the copy); a contact that shows no card any more is dropped. */
  async function refresh(id: string): Promise<boolean> {
    try {
      const result = await client.contacts.card(id, held.get(id));
      held.set(id, { card: result.card, etag: result.etag });
      return result.changed;
    } catch (error) {
      if (isProblem(error) && (error.status === 403 || error.status === 404 || error.status === 410)) return held.delete(id);
      throw error;
    }
  }

  /** Every active contact's card, and none of the others. */
  async function sync(): Promise<void> {
    const active = new Set<string>();
    for await (const contact of client.contacts.list({ status: 'active', limit: 200 })) active.add(contact.id);
    for (const id of held.keys()) if (!active.has(id)) held.delete(id);
    for (const id of active) await refresh(id);
  }

  return {
    /** The cards held, by contact id. */
    get cards(): ReadonlyMap<string, Card> {
      return new Map([...held].map(([id, entry]) => [id, entry.card]));
    },
    sync,
    refresh,

    /** Syncs, then follows the event stream until options.signal aborts. */
    async follow(options: ContactCardsOptions = {}): Promise<void> {
      await sync();
      await options.onChange?.(undefined);
      await client.events.stream({
        signal: options.signal,
        onSignal: async (signal: Signal) => {
          const changed = contactOfCard(signal.resource);
          if (signal.kind === 'contact.card.changed' && changed) {
            if (await refresh(changed)) await options.onChange?.(changed);
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

export type ContactCards = ReturnType<typeof contactCards>;
