// "Recent activity" on the Security screen: the account's security log, newest first, a page at
// a time, in words a person reads at a glance; redrawn when a signal says something happened.
import type { Page, SecurityLogEntry } from '../../../client/src/index.js';
import { client, explain } from '../app.js';
import { button, h, message, section, when } from '../dom.js';

const PAGE_SIZE = 10;

/** The log's kinds in plain words; a kind a newer server adds is shown by its name. */
const WHAT: Record<string, string> = {
  account_created: 'Account created',
  signed_in: 'Signed in',
  passkey_added: 'Passkey added',
  passkey_renamed: 'Passkey renamed',
  passkey_removed: 'Passkey removed',
  totp_added: 'Authenticator app added, not confirmed yet',
  totp_confirmed: 'Authenticator app confirmed',
  totp_removed: 'Authenticator app removed',
  recovery_key_downloaded: 'Recovery key downloaded',
  recovery_succeeded: 'Account recovered with the recovery key',
  recovery_failed: 'Someone tried to recover your account and failed',
  session_revoked: 'A session was signed out',
  account_deleted: 'Account deleted',
  account_restored: 'Account restored',
  account_locked: 'Account locked by the service',
  account_unlocked: 'Account unlocked by the service',
};
/** Entries that deserve a second look. */
const WARN = new Set(['recovery_failed', 'account_locked']);

function entryItem(entry: SecurityLogEntry): HTMLLIElement {
  // Private and loopback addresses have no place.
  const where = entry.location ? `${entry.location} · ${entry.ip}` : `Address ${entry.ip}`;
  return h('li', { 'data-kind': entry.kind, class: WARN.has(entry.kind) ? 'warn' : undefined },
    h('div', { class: 'item-main' },
      h('strong', {}, WHAT[entry.kind] ?? entry.kind.replaceAll('_', ' ')),
      h('div', { class: 'item-meta' }, `${when(entry.at)} · ${entry.device_label}`),
      h('div', { class: 'item-meta' }, where)));
}

export function recentActivity(): { element: HTMLElement; draw(): Promise<void> } {
  const list = h('ul', { class: 'items', id: 'activity' });
  const error = message('error');
  let pages: AsyncIterator<Page<SecurityLogEntry>> | undefined;
  const older = button('Show older', async () => {
    const from = pages;
    older.disabled = true;
    try {
      const next = await from?.next();
      if (from !== pages) return; // redrawn meanwhile: the new first page stands
      if (next && !next.done) list.append(...next.value.data.map(entryItem));
      older.hidden = !next || next.done === true || !next.value.has_more;
    } catch (failure) {
      error.textContent = explain(failure);
    } finally {
      older.disabled = false;
    }
  }, { id: 'activity-older', hidden: true });

  /** The newest page. A failure shows here, not in whichever action asked for the redraw. */
  async function draw(): Promise<void> {
    error.textContent = '';
    const mine = client.securityLog.list({ limit: PAGE_SIZE }).pages();
    pages = mine;
    try {
      const first = await mine.next();
      if (pages !== mine) return;
      const entries = first.done ? [] : first.value.data;
      list.replaceChildren(...entries.map(entryItem));
      older.hidden = first.done === true || !first.value.has_more;
    } catch (failure) {
      if (pages === mine) error.textContent = explain(failure);
    }
  }

  const element = section('Recent activity',
    h('p', { class: 'hint' }, 'Sign-ins and changes to how you sign in, newest first. Something you do not recognise? ',
      h('a', { href: '/sessions', 'data-link': '' }, 'Sign out that session'),
      ', remove any passkey you do not know, and download a new recovery key.'),
    list, older, error);
  return { element, draw };
}
