import type { AccountDataDeclaration } from '../../platform/account-data.js';
import { ref } from '../../platform/http/schemas.js';
import { signalSelected } from '../../platform/signals/signal.js';
import { keysetPages } from '../../platform/store/keyset.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import { Type } from 'typebox';
import { CardSchema } from '../profiles/schemas.js';
import { annotationView } from './annotations.js';
import type { annotationQueries, blockQueries, subscriptionQueries } from './queries.js';
import { AnnotationSchema, BlockSchema, ContactSchema, SubscriptionSchema } from './schemas.js';
import { LIVE_SEEN_BY_OWNER, LIVE_TO_SUBSCRIBER, STATUSES } from './states.js';
import { contactView, shownCardJson, subscriptionView } from './views.js';

type Repo = RepositoryOf<{ subs: typeof subscriptionQueries; blocks: typeof blockQueries; annotations: typeof annotationQueries }>;

const iso = (t: number) => new Date(t).toISOString();

/** A contact as the export lists it: the contact and the card it shows you now (null when none). */
const ExportedContact = Type.Object(
  { contact: ref(ContactSchema), card: Type.Union([ref(CardSchema), Type.Null()]) },
  { title: 'ExportedContact', additionalProperties: false },
);

/**
 * What the contacts module holds about an account (PRODUCT §8): both sides of its
 * subscriptions, its blocks, its annotations; and what the purge does with them. A purged
 * account's subscriptions end both ways and each other side is told; the rows stay, so the
 * other person keeps the entry (and their own note) until they remove it.
 */
export function contactsAccountData(db: Repo): AccountDataDeclaration {
  return {
    tables: {
      subscriptions: { exported: ['subscriptions', 'contacts'] },
      blocks: { exported: 'blocks' },
      annotations: { exported: 'annotations' },
      annotation_labels: { exported: 'annotations' },
    },
    sections: [
      {
        name: 'subscriptions',
        description: 'Who subscribes to you, and to which profile',
        kind: 'list',
        item: ref(SubscriptionSchema),
        async *pages(accountId) {
          for await (const rows of keysetPages((after, limit) => db.direct.subs.list('owner', accountId, { statuses: STATUSES }, after, limit), (row) => row)) yield rows.map(subscriptionView);
        },
      },
      {
        name: 'contacts',
        description: 'Everyone you subscribe to (removed ones too), with the card each shows you now',
        kind: 'list',
        item: ExportedContact,
        async *pages(accountId) {
          for await (const rows of keysetPages((after, limit) => db.direct.subs.allAsSubscriber(accountId, after, limit), (row) => row)) {
            const labels = await db.direct.annotations.labelsOf(accountId, rows.map((row) => row.id));
            yield rows.map((row) => {
              const contact = contactView(row, labels.get(row.id) ?? []);
              const card = shownCardJson(row);
              return { contact, card: card === null ? null : JSON.parse(card) };
            });
          }
        },
      },
      {
        name: 'annotations',
        description: 'Your private notes and labels on contacts',
        kind: 'list',
        item: ref(AnnotationSchema),
        async *pages(accountId) {
          for await (const rows of keysetPages((after, limit) => db.direct.annotations.byAuthor(accountId, after, limit), (row) => ({ created_at: row.created_at, id: row.subscription_id }))) {
            yield rows.map(annotationView);
          }
        },
      },
      {
        name: 'blocks',
        description: 'People you blocked from asking again',
        kind: 'list',
        item: BlockSchema,
        async *pages(accountId) {
          for await (const rows of keysetPages((after, limit) => db.direct.blocks.list(accountId, after, limit), (row) => row)) {
            yield rows.map((row) => ({ username: row.username, display_name: row.display_name, region: row.region, blocked_at: iso(row.created_at) }));
          }
        },
      },
    ],
    async erase(tx: Tx, accountId: string) {
      const q = db.in(tx);
      // Told first, while the rows still say who is live: each other side hears once.
      await signalSelected(tx, q.subs.subscribersOf(accountId, LIVE_TO_SUBSCRIBER), 'contacts.changed');
      // The owners of what they can see (a blocked person's silenced request is not theirs).
      await signalSelected(tx, q.subs.ownersOf(accountId, LIVE_SEEN_BY_OWNER), 'subscriptions.changed');
      await q.subs.endAllOf(accountId, tx.now(), LIVE_TO_SUBSCRIBER);
      await q.annotations.removeByAuthor(accountId);
      await q.blocks.removeAllOf(accountId);
    },
  };
}
