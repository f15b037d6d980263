// Which screen each path shows, each loaded when first shown
// (docs/decisions/160-web-app-components.md).
import type { Me } from '../../client/src/index.js';
import { route, routePrefix } from './core/router.js';
import type { Screen } from './core/router.js';
import { lazy } from './ui/lazy.js';

export function registerScreens(): void {
  route('/', { view: 'welcome', title: 'Sign in', component: lazy(() => import('./views/welcome.js')), signedOut: true });
  route('/join', { view: 'join', title: 'Join with a code', component: lazy(() => import('./views/join.js')), signedOut: true });
  route('/recover', { view: 'recover', title: 'Recover your account', component: lazy(() => import('./views/recover.js')), signedOut: true });
  route('/account', { view: 'account', title: 'Account', component: lazy(() => import('./views/account.js')) });
  route('/fields', { view: 'fields', title: 'Fields', component: lazy(() => import('./views/fields.js')) });
  route('/profiles', { view: 'profiles', title: 'Profiles', component: lazy(() => import('./views/profiles.js')) });
  route('/share', { view: 'share', title: 'Share', component: lazy(() => import('./views/share.js')) });
  route('/people', { view: 'people', title: 'People', component: lazy(() => import('./views/people.js')) });
  route('/contacts', { view: 'contacts', title: 'Contacts', component: lazy(() => import('./views/contacts.js')) });
  // A phone's setup page: /p/#<token> from the QR code, or /p where the short code is typed.
  const phoneSetup: Screen = { view: 'phone-setup', title: 'Add your contacts', component: lazy(() => import('./views/phone-setup.js')), open: true };
  route('/p', phoneSetup);
  route('/p/', phoneSetup);
  route('/phone-contacts', { view: 'phone-contacts', title: 'Phone contacts', component: lazy(() => import('./views/phone-contacts.js')) });
  route('/security', { view: 'security', title: 'Security', component: lazy(() => import('./views/security.js')) });
  route('/sessions', { view: 'sessions', title: 'Sessions', component: lazy(() => import('./views/sessions.js')) });
  route('/add-device', { view: 'add-device', title: 'Add a device', component: lazy(() => import('./views/add-device.js')) });
  route('/data', { view: 'data', title: 'Your data', component: lazy(() => import('./views/data.js')) });
  routePrefix('/@', { view: 'public-card', title: 'Card', component: lazy(() => import('./views/public-card.js')), open: true });
  // A share link's page: /s/#<token> (the token in the fragment, never sent to a server), and
  // /s/<token> from links made before, which the page moves into the fragment.
  const shareLink: Screen = { view: 'share-link', title: 'Share link', component: lazy(() => import('./views/share-link.js')), open: true };
  route('/s/', shareLink);
  routePrefix('/s/', shareLink);
}

/** The one screen of a deleted account (PRODUCT §8), whatever the path. */
export const Deleted = lazy<{ me: Me }>(() => import('./views/data.js').then((module) => ({ default: module.Deleted })));
