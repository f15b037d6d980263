// Your data (PRODUCT §8): download everything VID keeps, delete the account; and the one screen
// a deleted account has until it is erased: restore, download, sign out.
import { useState } from 'preact/hooks';
import { isProblem } from '../../../client/src/index.js';
import type { AccountExport, DeletionTerms, Me } from '../../../client/src/index.js';
import { cache, useResource } from '../core/cache.js';
import { client } from '../core/client.js';
import { navigate } from '../core/router.js';
import { toast } from '../core/toast.js';
import { Confirm, FormError, useAction } from '../ui/form.js';
import { Loaded, PageHead, Section } from '../ui/layout.js';
import { stepUp } from '../webauthn.js';

const TERMS = '/account/deletion-terms';

/** "a year", "2 years", "14 days": a span of days in the words a person uses. */
const spanOfDays = (days: number) =>
  days % 365 === 0 ? (days === 365 ? 'a year' : `${days / 365} years`) : days === 1 ? 'a day' : `${days} days`;
const usernameAfter = (terms: DeletionTerms) =>
  terms.username_hold_days === 0
    ? 'Your username is free for anyone to take after that.'
    : `Your username stays reserved for ${spanOfDays(terms.username_hold_days)} after that, so nobody can pose as you.`;
const longDay = (iso: string) => new Date(iso).toLocaleDateString(undefined, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
const inDays = (iso: string) => new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' }).format(Math.max(0, Math.ceil((Date.parse(iso) - Date.now()) / 86_400_000)), 'day');

/** The file's `left_out` entries in plain words, by table; a table not named here gets a plain line. */
const PLAIN: Record<string, [what: string, why: string]> = {
  sessions: ['Sign-in tokens', 'Secrets that would let whoever holds the file act as you. Your sessions are listed without them.'],
  refresh_tokens: ['Sign-in tokens', 'Secrets that would let whoever holds the file act as you. Your sessions are listed without them.'],
  passkeys: ['Passkey public keys', 'Only the server needs them, to check your signatures. Your passkeys’ names and dates are in the file.'],
  totp_authenticators: ['Authenticator-app secrets', 'They would let whoever holds the file make your codes. The apps’ names and dates are in the file.'],
  recovery_keys: ['Your recovery key', 'It would let anyone into your account. Download it under Security, and keep it apart.'],
  share_links: ['Share-link codes', 'Whoever holds one may ask to see your card. Your links are listed without them.'],
  dav_tokens: ['Address-book passwords', 'They would let whoever holds the file read your contacts. Their names and dates are in the file.'],
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

function KeptOut({ doc }: { doc: AccountExport }) {
  const lines = new Map<string, [string, string]>();
  for (const item of doc.left_out) {
    const [what, why] = PLAIN[item.table] ?? ['Records kept for the service itself', 'They are about how the service runs, not about you.'];
    lines.set(`${what}\n${why}`, [what, why]);
  }
  return (
    <details class="kept-out" id="kept-out">
      <summary>What it leaves out, and why ({lines.size})</summary>
      <ul>{[...lines.values()].map(([what, why]) => <li key={what + why}><strong>{what}</strong><span>{why}</span></li>)}</ul>
    </details>
  );
}

/** Step-up, then the file saved the way the recovery key is: a blob link clicked once. */
function Download({ primary }: { primary: boolean }) {
  const [saved, setSaved] = useState<{ name: string; kb: number; doc: AccountExport } | undefined>(undefined);
  const download = useAction(async () => {
    const doc = await client.account.export({ stepUp });
    const name = `vid-export-${doc.account.username}-${doc.exported_at.slice(0, 10)}.json`;
    const blob = new Blob([JSON.stringify(doc, null, 2)], { type: 'application/json' });
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    setSaved({ name, kb: Math.max(1, Math.round(blob.size / 1024)), doc });
  }, { done: 'Your data is downloaded.' });
  return (
    <Section title="Download my data">
      <p>One file with everything VID keeps about you: your account, details, profiles and what each shows, who sees your cards, your contacts and their cards, your notes and labels, share links, passkeys and authenticator apps by name, sessions and your security log.</p>
      <p class="hint">It holds no secrets: no sign-in tokens, recovery key, authenticator-app secrets or share-link codes, so nobody can get into your account with it. Keep it somewhere private all the same. Your passkey confirms it is you.</p>
      <div class="actions">
        <button type="button" id="download-data" class={primary ? 'primary' : undefined} disabled={download.busy} onClick={() => void download.run()}>Download my data</button>
      </div>
      <FormError action={download} />
      {saved ? (
        <div class="download-done">
          <p class="msg ok">Saved {saved.name} ({saved.kb} KB).</p>
          <KeptOut doc={saved.doc} />
        </div>
      ) : null}
    </Section>
  );
}

function DeleteAccount({ terms }: { terms: DeletionTerms }) {
  const [asking, setAsking] = useState(false);
  const remove = useAction(async () => {
    const deletion = await client.account.remove({ stepUp });
    // /me now says deleted: the app shows the one screen a deleted account has.
    await cache.revalidate('/me');
    void deletion;
  }, { done: 'Your account is deleted.' });
  const purge = longDay(new Date(Date.now() + terms.grace_days * 86_400_000).toISOString());
  const consequences = (
    <>
      <ul class="consequences">
        <li>Your other devices are signed out now.</li>
        <li>Your public card and your share links stop working.</li>
        <li>The people who see your card see you as unavailable.</li>
        <li>On {purge}, everything is erased for good. {usernameAfter(terms)}</li>
      </ul>
      <p class="undo-until">Until then you can sign in with your passkey and restore it, exactly as it was.</p>
    </>
  );
  return (
    <Section title="Delete my account">
      <p>You can change your mind for {spanOfDays(terms.grace_days)}: sign in and restore it. After that it is erased for good.</p>
      {asking ? (
        <Confirm id="delete-account-confirm" heading="Delete your account?" details={consequences} verb="Delete my account" verbId="confirm-delete-account" focusVerb
          action={remove} keep="Keep my account" keepId="keep-account" onKeep={() => (setAsking(false), remove.clear())} />
      ) : (
        <button type="button" class="danger" id="delete-account" onClick={() => setAsking(true)}>Delete my account…</button>
      )}
      <FormError action={remove} />
    </Section>
  );
}

export default function Data() {
  const terms = useResource<DeletionTerms>(TERMS);
  return (
    <div class="data-page">
      <PageHead title="Your data" lead="Take a copy of everything VID keeps about you, or delete your account." />
      <Download primary />
      <Loaded state={terms} lines={2}>{(t) => <DeleteAccount terms={t} />}</Loaded>
    </div>
  );
}

/** The only screen while the account is deleted: every other route answers 403 until restored. */
export function Deleted({ me }: { me: Me }) {
  const terms = useResource<DeletionTerms>(TERMS);
  const restore = useAction(async () => {
    try {
      const restored = await client.account.undelete();
      cache.put('/me', restored);
    } catch (error) {
      // Restored meanwhile (another tab or device): this screen was out of date.
      if (isProblem(error, 'account_not_deleted')) return void (await cache.revalidate('/me'));
      throw error;
    }
    if (location.pathname === '/data') navigate('/account');
  }, { done: 'Welcome back: your account is restored.' });
  const signOut = useAction(async () => {
    await client.logout().catch(() => undefined);
    navigate('/');
  }, { done: 'Signed out.' });
  const purgeAt = me.purge_at ?? new Date().toISOString();
  return (
    <div class="data-page">
      <section class="card grace" aria-labelledby="grace-title">
        <h1 id="grace-title">Your account is deleted</h1>
        <p class="grace-date">Erased for good on <strong data-testid="purge-at">{longDay(purgeAt)}</strong> ({inDays(purgeAt)}).</p>
        <p>Until then nothing is lost: restore it and everything is back as it was: your details, profiles and contacts. Your other devices will need to sign in again.</p>
        <ul class="consequences">
          <li>Your public card and share links do not work.</li>
          <li>The people who see your card see you as unavailable.</li>
          {terms.data ? (
            <li>{terms.data.username_hold_days === 0 ? 'After that date anyone may take your username.' : `After that date your username stays reserved for ${spanOfDays(terms.data.username_hold_days)}, then anyone may take it.`}</li>
          ) : null}
        </ul>
        <div class="grace-actions">
          <button type="button" class="primary" id="restore-account" disabled={restore.busy} onClick={() => void restore.run()}>Restore my account</button>
          <button type="button" class="secondary" id="logout" disabled={signOut.busy} onClick={() => void signOut.run()}>Sign out</button>
        </div>
        <FormError action={restore} />
      </section>
      <Download primary={false} />
    </div>
  );
}
