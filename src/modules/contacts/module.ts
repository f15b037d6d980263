import { defineModule } from '../../platform/module.js';
import { OPERATIONS } from './operations.js';
import { accountQueries } from '../../platform/store/accounts.js';
import { contactsAccountData } from './account-data.js';
import { createAnnotationService } from './annotations.js';
import { createContactService } from './contacts.js';
import type { ContactService } from './contacts.js';
import { contactRoutes } from './contacts-routes.js';
import { subscriptions as subscriptionsMigration } from './migrations/007-subscriptions.js';
import { cardChanges } from './migrations/017-card-changes.js';
import { waitingRequests } from './migrations/023-waiting-requests.js';
import { requestLinks } from './migrations/024-request-links.js';
import { remoteSubscribers } from './migrations/028-remote-subscribers.js';
import { annotationQueries, blockQueries, subscriptionQueries } from './queries.js';
import { AnnotationSchema, ContactSchema, SubscriptionSchema } from './schemas.js';
import { createRemoteContacts } from './remote.js';
import type { RemoteContacts } from './remote.js';
import { createSubscriptionService } from './subscriptions.js';
import type { SubscriptionService } from './subscriptions.js';
import { subscriptionRoutes } from './subscriptions-routes.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    subscriptions: SubscriptionService;
    contacts: ContactService;
    remoteContacts: RemoteContacts;
  }
}

/** Subscriptions (owner), contacts (subscriber), blocks and annotations: cards that stay current (PRODUCT §4, §5). */
export const contactsModule = defineModule({
  name: 'contacts',
  operations: OPERATIONS,
  migrations: { '007-subscriptions': subscriptionsMigration, '017-card-changes': cardChanges, '023-waiting-requests': waitingRequests, '024-request-links': requestLinks, '028-remote-subscribers': remoteSubscribers },
  schemas: [SubscriptionSchema, ContactSchema, AnnotationSchema],
  tags: [
    { name: 'subscriptions', description: 'Who sees your cards: requests, approvals, moves, revocations, blocks' },
    { name: 'contacts', description: 'The people you subscribe to, and the cards they show you' },
    { name: 'annotations', description: 'Your private notes and labels on contacts' },
  ],
  build({ config, clock, store, accountData }, { profiles, usernames }) {
    const db = store.repository({ subs: subscriptionQueries, blocks: blockQueries, annotations: annotationQueries, accounts: accountQueries });
    const subscriptions = createSubscriptionService({ db, clock, holdsProfile: profiles.holds, changesBetween: profiles.changesBetween });
    const contacts = createContactService({ db, clock, subscriptions, canonicalOf: usernames.canonicalOf, cards: profiles });
    const annotations = createAnnotationService({ db: store.repository({ annotations: annotationQueries, subs: subscriptionQueries }), clock });
    const remoteContacts = createRemoteContacts({ db, clock, subscriptions, cards: profiles });
    accountData.declare('contacts', contactsAccountData(db));
    return {
      provides: { subscriptions, contacts, remoteContacts },
      // Requests left waiting 30 days end (PRODUCT §4, silent refusals).
      prune: (now) => subscriptions.endUnanswered(now),
      routes: async (app) => {
        await subscriptionRoutes(app, { subscriptions, canonicalOf: usernames.canonicalOf, region: config.region });
        await contactRoutes(app, { contacts, annotations });
      },
    };
  },
});
