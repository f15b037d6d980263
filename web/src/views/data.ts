// Your data (PRODUCT §8): download everything VID keeps, delete the account; and the one screen
// a deleted account has until it is erased: restore, download, sign out.
import { isProblem } from '../../../client/src/index.js';
import type { AccountDeletion, AccountExport, DeletionTerms } from '../../../client/src/index.js';
import { announce, client, explain, lifecycleChanged, navigate, type View } from '../app.js';
import { button, h, message, section } from '../dom.js';
import { isCancel, stepUp } from '../webauthn.js';

/** "a year", "2 years", "14 days": a span of days (the grace, the username's hold) in the words a person uses. */
const spanOfDays = (days: number) =>
  days % 365 === 0 ? (days === 365 ? 'a year' : `${days / 365} years`) : days === 1 ? 'a day' : `${days} days`;
/** What happens to the username after the erasure, by this server's USERNAME_HOLD_DAYS. */
const usernameAfter = (terms: DeletionTerms) =>
  terms.username_hold_days === 0
    ? 'Your username is free for anyone to take after that.'
    : `Your username stays reserved for ${spanOfDays(terms.username_hold_days)} after that, so nobody can pose as you.`;

const longDay = (iso: string) => new Date(iso).toLocaleDateString(undefined, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
/** "in 30 days", "tomorrow", "today": a date as a countdown. */
const inDays = (iso: string) => new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' }).format(Math.max(0, Math.ceil((Date.parse(iso) - Date.now()) / 86_400_000)), 'day');
const problemText = (error: unknown) => (isCancel(error) ? 'Cancelled: nothing was done.' : explain(error));

/**
 * The file's `left_out` entries in plain words, by table. A table not named here (a newer
 * server) is shown with the server's own reason, so nothing it leaves out goes unsaid.
 */
const PLAIN: Record<string, [what: string, why: string]> = {
  sessions: ['Sign-in tokens', 'Secrets that would let whoever holds the file act as you. Your sessions are listed without them.'],
  refresh_tokens: ['Sign-in tokens', 'Secrets that would let whoever holds the file act as you. Your sessions are listed without them.'],
  passkeys: ['Passkey public keys', 'Only the server needs them, to check your signatures. Your passkeys’ names and dates are in the file.'],
  totp_authenticators: ['Authenticator-app secrets', 'They would let whoever holds the file make your codes. The apps’ names and dates are in the file.'],
  recovery_keys: ['Your recovery key', 'It would let anyone into your account. Download it under Security, and keep it apart.'],
  share_links: ['Share-link codes', 'Whoever holds one may ask to see your card. Your links are listed without them.'],
  join_codes: ['Device-join codes', 'Codes that last minutes. The devices they added are under sessions and in your security log.'],
  join_attempts: ['Device-join codes', 'Codes that last minutes. The devices they added are under sessions and in your security log.'],
  accounts: ['Internal numbers', 'How the server finds your passkeys and your changes; they mean nothing anywhere else.'],
  events: ['Change notices', 'They say only that something changed, never what, and are gone after 30 days.'],
  ceremonies: ['Short-lived checks', 'Passkey challenges and records of recent requests, kept from minutes to a day so sign-ins and retries stay safe.'],
  dpop_jtis: ['Short-lived checks', 'Passkey challenges and records of recent requests, kept from minutes to a day so sign-ins and retries stay safe.'],
  idempotency_records: ['Short-lived checks', 'Passkey challenges and records of recent requests, kept from minutes to a day so sign-ins and retries stay safe.'],
  kysely_migration: ['The database version', 'Nothing about you.'],
  kysely_migration_lock: ['The database version', 'Nothing about you.'],
};

const sentence = (text: string) => {
  const trimmed = text.trim();
  return `${trimmed.charAt(0).toUpperCase()}${trimmed.slice(1)}${/[.!?]$/.test(trimmed) ? '' : '.'}`;
};

/** The file's own `left_out` list, one line per thing (tables with one plain reason share it). */
function keptOut(doc: AccountExport): HTMLElement {
  const lines = new Map<string, [string, string]>();
  for (const item of doc.left_out) {
    const [what, why] = PLAIN[item.table] ?? [sentence(item.table.replace(/_/g, ' ')).slice(0, -1), sentence(item.reason)];
    lines.set(`${what}\n${why}`, [what, why]);
  }
  return h('details', { class: 'kept-out', id: 'kept-out' },
    h('summary', {}, `What it leaves out, and why (${lines.size})`),
    h('ul', {}, ...[...lines.values()].map(([what, why]) => h('li', {}, h('strong', {}, what), h('span', {}, why)))));
}

/** Step-up, then the file saved the way the recovery key is: a blob link clicked once. */
function downloadSection(primary: boolean): HTMLElement {
  const msg = message('error');
  const done = h('div', { class: 'download-done', 'aria-live': 'polite' });
  const start = button('Download my data', async () => {
    msg.textContent = '';
    start.disabled = true;
    try {
      const doc = await client.account.export({ stepUp });
      const name = `vid-export-${doc.account.username}-${doc.exported_at.slice(0, 10)}.json`;
      const blob = new Blob([JSON.stringify(doc, null, 2)], { type: 'application/json' });
      const url = URL.createObjectURL(blob);
      const a = h('a', { href: url, download: name });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      done.replaceChildren(
        h('p', { class: 'msg ok' }, `Saved ${name} (${Math.max(1, Math.round(blob.size / 1024))} KB).`),
        keptOut(doc));
      announce('Your data is downloaded.');
    } catch (error) {
      msg.textContent = problemText(error);
    } finally {
      start.disabled = false;
    }
  }, { class: primary ? 'primary' : undefined, id: 'download-data' });
  return section('Download my data',
    h('p', {}, 'One file (JSON) with everything VID keeps about you: your account, fields, profiles and what each shows, who sees your cards, your contacts and their cards, your notes and labels, share links, passkeys and authenticator apps by name, sessions and your security log.'),
    h('p', { class: 'hint' }, 'It holds no secrets: no sign-in tokens, recovery key, authenticator-app secrets or share-link codes, so it cannot be used to get into your account. Keep it somewhere private all the same. Your passkey confirms it is you.'),
    h('div', { class: 'actions' }, start),
    msg,
    done);
}

export default async function data(): Promise<View> {
  const terms = await client.account.deletionTerms();
  return {
    title: 'Your data',
    render(main) {
      const msg = message('error');
      const confirmArea = h('div', { class: 'confirm', id: 'delete-account-confirm' });
      const askDelete = () => {
        msg.textContent = '';
        const purge = longDay(new Date(Date.now() + terms.grace_days * 86_400_000).toISOString());
        const remove = button('Delete my account', async () => {
          msg.textContent = '';
          remove.disabled = true;
          try {
            const deletion = await client.account.remove({ stepUp });
            await lifecycleChanged(deletion, location.pathname, 'Your account is deleted.');
          } catch (error) {
            msg.textContent = problemText(error);
            remove.disabled = false;
          }
        }, { class: 'danger', id: 'confirm-delete-account' });
        confirmArea.replaceChildren(
          h('h3', { id: 'delete-account-title' }, 'Delete your account?'),
          h('ul', { class: 'consequences', 'aria-labelledby': 'delete-account-title' },
            h('li', {}, 'Your other devices are signed out now.'),
            h('li', {}, 'Your public card and your share links stop working.'),
            h('li', {}, 'The people who see your card see you as unavailable.'),
            h('li', {}, `On ${purge}, everything is erased for good. ${usernameAfter(terms)}`)),
          h('p', { class: 'undo-until' }, 'Until then you can sign in with your passkey and restore it, exactly as it was.'),
          h('div', { class: 'actions' }, remove, button('Keep my account', () => confirmArea.replaceChildren(), { id: 'keep-account' })));
        remove.focus();
      };
      main.append(h('div', { class: 'data-page' },
        h('h1', {}, 'Your data'),
        h('p', { class: 'lead' }, 'Take a copy of everything VID keeps about you, or delete your account.'),
        downloadSection(true),
        section('Delete my account',
          h('p', {}, `You can change your mind for ${spanOfDays(terms.grace_days)}: sign in and restore it. After that it is erased for good.`),
          button('Delete my account…', askDelete, { class: 'danger', id: 'delete-account', 'aria-controls': 'delete-account-confirm' }),
          confirmArea,
          msg),
      ));
    },
  };
}

/** The only screen while the account is deleted: every other route answers 403 until restored. */
export async function deleted(deletion: AccountDeletion): Promise<View> {
  const terms = await client.account.deletionTerms();
  return {
    title: 'Account deleted',
    render(main) {
      const msg = message('error');
      const restore = button('Restore my account', async () => {
        msg.textContent = '';
        restore.disabled = true;
        // Back where the person was, unless that was the page they deleted it from.
        const path = location.pathname === '/data' ? '/account' : location.pathname;
        try {
          await client.account.undelete();
          await lifecycleChanged(undefined, path, 'Welcome back: your account is restored.');
        } catch (error) {
          // Restored meanwhile (another tab or device): this screen was out of date.
          if (isProblem(error) && error.code === 'account_not_deleted') return void (await lifecycleChanged(undefined, path, 'Your account is active.'));
          msg.textContent = explain(error);
          restore.disabled = false;
        }
      }, { class: 'primary', id: 'restore-account' });
      const signOut = button('Sign out', async () => {
        await client.logout().catch(() => undefined);
        await navigate('/', 'Signed out.');
      }, { class: 'secondary', id: 'logout' });
      main.append(h('div', { class: 'data-page' },
        h('section', { class: 'card grace', 'aria-labelledby': 'grace-title' },
          h('h1', { id: 'grace-title' }, 'Your account is deleted'),
          h('p', { class: 'grace-date' }, 'Erased for good on ', h('strong', { 'data-testid': 'purge-at' }, longDay(deletion.purge_at)), ` (${inDays(deletion.purge_at)}).`),
          h('p', {}, 'Until then nothing is lost: restore it and everything is back as it was — your fields, profiles and contacts. Your other devices will need to sign in again.'),
          h('ul', { class: 'consequences' },
            h('li', {}, 'Your public card and share links do not work.'),
            h('li', {}, 'The people who see your card see you as unavailable.'),
            h('li', {}, terms.username_hold_days === 0
              ? 'After that date anyone may take your username.'
              : `After that date your username stays reserved for ${spanOfDays(terms.username_hold_days)}, then anyone may take it.`)),
          h('div', { class: 'grace-actions' }, restore, signOut),
          msg),
        // Restoring is this screen's one main action.
        downloadSection(false),
      ));
    },
  };
}
