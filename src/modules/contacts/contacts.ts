import type { AuthContext } from '../../platform/caller.js';
import type { Clock } from '../../platform/clock.js';
import { noneMatchHolds } from '../../platform/etag.js';
import type { Conditional } from '../../platform/etag.js';
import { refuse } from '../../platform/errors.js';
import { signal } from '../../platform/signals/signal.js';
import type { accountQueries } from '../../platform/store/accounts.js';
import { decodeCursor, toPage } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import type { RepositoryOf } from '../../platform/store/store.js';
import { cardToVcard, uidFor } from '../profiles/vcard.js';
import type { VcardVersion } from '../profiles/vcard.js';
import { labelKey } from './queries.js';
import type { annotationQueries, blockQueries, ContactCardRow, subscriptionQueries } from './queries.js';
import { TRANSITIONS } from './states.js';
import type { SubscriptionStatus } from './states.js';
import { invalidTransition } from './subscriptions.js';
import type { SubscriptionService } from './subscriptions.js';
import { contactCard, contactEtag, contactView } from './views.js';
import type { ContactView } from './views.js';

type Repo = RepositoryOf<{ subs: typeof subscriptionQueries; blocks: typeof blockQueries; annotations: typeof annotationQueries; accounts: typeof accountQueries }>;

const notFound = () => refuse('contact_not_found', 'you have no contact with this id');

/** The card of an active contact, or the refusal that says why there is none. */
function cardOf(row: ContactCardRow | undefined): { json: string; etag: string } {
  const active = activeRow(row);
  if (active.card_json === null) throw refuse('contact_not_active', 'this contact shows you no card: it is not active');
  return contactCard({ ...active, card_json: active.card_json });
}

function activeRow<Row extends Omit<ContactCardRow, 'card_json'>>(row: Row | undefined): Row & { card_etag: string; card_updated_at: number } {
  if (!row) throw notFound();
  // PRODUCT §4: while the owner's account is deleted the card is gone, and may come back.
  if (row.owner_deleted_at !== null && row.status === 'active') throw refuse('contact_account_deleted', "this contact's account is deleted; its card is back if they restore it");
  // Decision 090: a locked owner's card is unavailable; why is between them and the operator.
  if (row.owner_locked_at !== null && row.status === 'active') throw refuse('contact_account_unavailable', "this contact's account is not available right now; its card is back when it is");
  if (row.status !== 'active' || row.card_etag === null || row.card_updated_at === null) {
    throw refuse('contact_not_active', 'this contact shows you no card: it is not active');
  }
  return row as Row & { card_etag: string; card_updated_at: number };
}

/**
 * Contacts, the subscriber's side of a subscription (PRODUCT §4): subscribe, list, read the
 * card the owner chose for you, take cards to an address book, unsubscribe.
 */
export function createContactService(deps: { db: Repo; clock: Clock; subscriptions: SubscriptionService; canonicalOf(username: string): string | undefined }) {
  const { db, clock } = deps;

  async function view(auth: AuthContext, id: string): Promise<ContactView> {
    const row = await db.direct.subs.find('subscriber', auth.account.id, id);
    if (!row || row.hidden_at !== null) throw notFound();
    const labels = (await db.direct.annotations.labelsOf(auth.account.id, [id])).get(id) ?? [];
    return contactView(row, labels);
  }

  return {
    view,

    /** POST /contacts: a request to see someone's card, pending until they approve it. */
    async subscribe(auth: AuthContext, username: string, message: string | null | undefined): Promise<ContactView> {
      const canonical = deps.canonicalOf(username);
      const owner = canonical ? await db.direct.accounts.findByCanonical(canonical) : undefined;
      // A deleted account (restorable or purged) is nobody to subscribe to (PRODUCT §4), nor is a locked one.
      if (!owner || owner.deleted_at !== null || owner.locked_at !== null) throw refuse('account_not_found', 'nobody has this username');
      const id = await db.transaction((_, tx) => deps.subscriptions.subscribe(tx, auth, { ownerId: owner.id, message }));
      return view(auth, id);
    },

    async list(auth: AuthContext, filter: { status?: SubscriptionStatus; label?: string }, cursor: string | undefined, limit: number): Promise<Page<ContactView>> {
      const rows = await db.direct.subs.list('subscriber', auth.account.id, { status: filter.status, label: filter.label === undefined ? undefined : labelKey(filter.label) }, decodeCursor(cursor), limit + 1);
      const page = toPage(rows, limit, (row) => row);
      const labels = await db.direct.annotations.labelsOf(auth.account.id, page.data.map((row) => row.id));
      return { ...page, data: page.data.map((row) => contactView(row, labels.get(row.id) ?? [])) };
    },

    /**
     * DELETE /contacts/{id}: unsubscribes (pending or active → ended); an ended, denied or revoked
     * contact leaves the list. Either way the private annotation goes with it (PRODUCT §5).
     */
    async remove(auth: AuthContext, id: string): Promise<void> {
      const subscriberId = auth.account.id;
      await db.transaction(async (q, tx) => {
        const row = await q.subs.find('subscriber', subscriberId, id);
        if (!row || row.hidden_at !== null) throw notFound();
        const rule = TRANSITIONS.unsubscribe;
        if ((rule.from as readonly string[]).includes(row.status)) {
          const ended = await q.subs.transition('subscriber', subscriberId, id, rule.from, { status: rule.to, hidden_at: clock.now() }, clock.now());
          if (!ended) throw invalidTransition((await q.subs.find('subscriber', subscriberId, id))!.status, 'unsubscribe');
          await signal(tx, ended.owner_id, 'subscriptions.changed');
        } else {
          await q.subs.hide(subscriberId, id, clock.now());
        }
        await signal(tx, subscriberId, 'contacts.changed');
        if (await q.annotations.remove(subscriberId, id)) await signal(tx, subscriberId, 'annotations.changed', { id });
      });
    },

    /**
     * GET /contacts/{id}/card: the card of the profile the owner shows you; active contacts only.
     * A conditional read whose tag still holds reads no card (304).
     */
    async card(auth: AuthContext, id: string, ifNoneMatch?: string): Promise<Conditional> {
      if (ifNoneMatch) {
        const etag = contactEtag(activeRow(await db.direct.subs.cardTag(auth.account.id, id)));
        if (noneMatchHolds(ifNoneMatch, etag)) return { etag };
      }
      return cardOf(await db.direct.subs.card(auth.account.id, id));
    },

    async vcard(auth: AuthContext, id: string, version: VcardVersion): Promise<{ text: string; etag: string; username: string }> {
      const row = await db.direct.subs.card(auth.account.id, id);
      const card = cardOf(row);
      const parsed = JSON.parse(card.json);
      return { text: cardToVcard(parsed, { version, uid: uidFor(row!.owner_id) }), etag: `${card.etag.slice(0, -1)}-v${version[0]}"`, username: parsed.owner.username };
    },

    /** Every active contact in one file, each its own BEGIN…END with a stable UID (an import updates). */
    async allVcards(auth: AuthContext, version: VcardVersion): Promise<string> {
      const rows = await db.direct.subs.activeCards(auth.account.id);
      return rows.map((row) => cardToVcard(JSON.parse(cardOf(row).json), { version, uid: uidFor(row.owner_id) })).join('');
    },
  };
}

export type ContactService = ReturnType<typeof createContactService>;
