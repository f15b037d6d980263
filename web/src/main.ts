// Entry: routes, link handling, first render. Every view is a small module under views/.
import { graceRoute, openRoute, route, navigate, show } from './app.js';
import account from './views/account.js';
import addDevice from './views/add-device.js';
import contacts from './views/contacts.js';
import data, { deleted } from './views/data.js';
import fields from './views/fields.js';
import people from './views/people.js';
import profiles from './views/profiles.js';
import publicCard from './views/public-card.js';
import join from './views/join.js';
import recover from './views/recover.js';
import security from './views/security.js';
import sessions from './views/sessions.js';
import share from './views/share.js';
import shareLink from './views/share-link.js';
import welcome from './views/welcome.js';

route('/', welcome);
route('/join', join);
route('/recover', recover);
route('/account', account);
route('/fields', fields);
route('/profiles', profiles);
route('/share', share);
route('/people', people);
route('/contacts', contacts);
openRoute('/@', publicCard);
openRoute('/s/', shareLink, 'share-link');
route('/security', security);
route('/sessions', sessions);
route('/add-device', addDevice);
route('/data', data);
graceRoute(deleted);

document.addEventListener('click', (event) => {
  const link = (event.target as Element | null)?.closest?.('a[data-link]');
  if (!link || !(link instanceof HTMLAnchorElement) || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  event.preventDefault();
  void navigate(new URL(link.href).pathname);
});
window.addEventListener('popstate', () => void show());
void show();
