import type { AuthContext } from '../../platform/caller.js';
import { listPosition, page, pageOfList } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import { contactNotFound } from './contact-card.js';
import type { CardRowOf, ContactCard, ContactRepo, ListedContact } from './contact-card.js';
import { matches, queryWords, searchTextOf, sortKeyOf } from './contact-search.js';
import type { ContactSort, Findable } from './contact-search.js';
import { labelKey } from './queries.js';
import { SEEN_BY_SUBSCRIBER, storedAs } from './states.js';
import type { SubscriptionStatus } from './states.js';
import { cardChangedAt, contactView, shownCardJson } from './views.js';
import type { ContactView, RegionSilence } from './views.js';

/** A search's and a sort's cursor: the last contact's (sort key, id). */
const FOUND_POSITION = listPosition(['string', 'string']);

/**
 * The subscriber's list of contacts (PRODUCT §4, §5): one contact, a page of them by status
 * and label, or those a search finds (decision 270), each with its card when asked.
 */
export function createContactList(deps: { db: ContactRepo; withCard: ContactCard['withCard']; silence: RegionSilence }) {
  const { db, withCard, silence } = deps;

  /**
   * GET /contacts?q=&sort=: the subscriber's contacts (as the list narrows them) whose names,
   * username, labels or shown card hold every word of `q`, folded (decision 270), in `sort`'s
   * order, paged by position like any list.
   */
  async function find(auth: AuthContext, filter: { statuses: readonly string[]; label?: string; q: string; sort: ContactSort }, cursor: string | undefined, limit: number, withCards: boolean): Promise<Page<ListedContact>> {
    const [rows, labels] = await Promise.all([
      filter.statuses.length ? db.direct.subs.findable(auth.account.id, { statuses: filter.statuses, label: filter.label }) : [],
      db.direct.annotations.allLabelsOf(auth.account.id),
    ]);
    const words = queryWords(filter.q);
    const found: Array<{ view: ContactView; key: string; row: (typeof rows)[number] }> = [];
    for (const row of rows) {
      const view = contactView(row, labels.get(row.id) ?? [], silence);
      const card = shownCardJson(row);
      const contact: Findable = {
        id: row.id,
        owner: view.owner,
        labels: view.labels,
        fields: card !== null ? (JSON.parse(card) as { fields: Findable['fields'] }).fields : [],
        changedAt: card !== null ? cardChangedAt(row) : null,
      };
      if (words.length && !matches(searchTextOf(contact), words)) continue;
      found.push({ view, row, key: filter.sort === 'created' ? `${String(row.created_at).padStart(16, '0')}` : sortKeyOf(contact, filter.sort) });
    }
    found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.view.id < b.view.id ? -1 : a.view.id > b.view.id ? 1 : 0));
    const listed = pageOfList(found, cursor, limit, (item) => [item.key, item.view.id], FOUND_POSITION);
    return { ...listed, data: listed.data.map((item) => (withCards ? withCard(item.view, item.row as CardRowOf<typeof item.row>) : item.view)) };
  }

  return {
    /** A contact as its subscriber sees it; `current`: a keyed request answers with what it just wrote, not yet committed. */
    async view(auth: AuthContext, id: string): Promise<ContactView> {
      const row = await db.current.subs.find('subscriber', auth.account.id, id);
      if (!row || row.hidden_at !== null) throw contactNotFound();
      const labels = (await db.current.annotations.labelsOf(auth.account.id, [id])).get(id) ?? [];
      return contactView(row, labels, silence);
    },

    /** GET /contacts: a page of the subscriber's contacts; `withCards` (include=card): each with the card it shows them. */
    async list(auth: AuthContext, filter: { status?: SubscriptionStatus; label?: string; q?: string; sort?: ContactSort }, cursor: string | undefined, limit: number, withCards = false): Promise<Page<ListedContact>> {
      const label = filter.label === undefined ? undefined : labelKey(filter.label);
      // By the status the subscriber reads: pending holds denied and silenced requests, denied nothing (PRODUCT §4).
      const statuses = filter.status ? storedAs(filter.status) : (Object.keys(SEEN_BY_SUBSCRIBER) as SubscriptionStatus[]);
      if (filter.q !== undefined || (filter.sort ?? 'created') !== 'created') return find(auth, { statuses, label, q: filter.q ?? '', sort: filter.sort ?? 'created' }, cursor, limit, withCards);
      // A status no contact reads (denied) lists nothing; the cursor is still checked (an empty IN list is not SQL).
      const listed = await page(async (after, size) => (statuses.length ? db.direct.subs.list('subscriber', auth.account.id, { statuses, label }, after, size, withCards) : []), cursor, limit, (row) => row);
      const labels = await db.direct.annotations.labelsOf(auth.account.id, listed.data.map((row) => row.id));
      return { ...listed, data: listed.data.map((row) => {
        const view = contactView(row, labels.get(row.id) ?? [], silence);
        return withCards ? withCard(view, row as CardRowOf<typeof row>) : view;
      }) };
    },
  };
}
