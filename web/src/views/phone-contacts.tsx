// Phone contacts (PRODUCT §9, docs/carddav.md): the people you follow in the phone's own Contacts
// app. Adding a phone makes a setup link (POST /dav-setup-links, after a passkey check) shown as a
// QR code and a short code: the phone opens it (views/phone-setup.tsx) and receives its own
// address-book password without typing. This screen follows the link live (`dav-tokens.changed`):
// used, then the phone's first sync. Typing a password by hand (POST /dav-tokens) stays as the
// way for other apps. Below, every phone with its last sync, revoked one by one or all at once.
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import type { Schemas } from '../../../client/src/api.js';
import { useResource } from '../core/cache.js';
import type { ListPage } from '../core/cache.js';
import { client, session } from '../core/client.js';
import { useValue } from '../core/state.js';
import { LIMITS } from '../core/limits.js';
import { useSecondsLeft } from '../ui/countdown.js';
import { Credentials } from '../ui/credentials.js';
import { Confirm, FormError, TextField, useAction, useDraft } from '../ui/form.js';
import { Empty, Loaded, PageHead, Section } from '../ui/layout.js';
import { Qr } from '../ui/qr.js';
import { ago, day } from '../ui/words.js';
import { stepUp } from '../webauthn.js';
import './phone-contacts.css';

type Phone = Schemas['DavToken'];
type Created = Schemas['CreatedDavToken'];
type Link = Schemas['CreatedSetupLink'];
type LinkState = Schemas['SetupLink'];

const PHONES = '/dav-tokens';
/** At most this many at once (the server's DAV_TOKEN_LIMITS.perAccount; test/web/limits.test.ts). */
export const PHONE_LIMIT = LIMITS.davTokens;

/** "Last synced 5 minutes ago" or "Never synced yet". */
export const lastSync = (iso: string | null, now = Date.now()): string => (iso ? `Last synced ${ago(iso, now)}` : 'Never synced yet');

/**
 * Whether a phone can open a link to this server: never for the computer's own names
 * (localhost, 127.0.0.1, ::1), only on the same network for private addresses (RFC 1918, .local).
 */
export function phoneReach(url: string): 'anywhere' | 'same-network' | 'never' {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host === '::1' || host === '0.0.0.0' || /^127\./.test(host)) return 'never';
  if (/^10\./.test(host) || /^192\.168\./.test(host) || /^172\.(1[6-9]|2\d|3[01])\./.test(host) || host.endsWith('.local') || /^f[cd][0-9a-f]{2}:/.test(host)) return 'same-network';
  return 'anywhere';
}

/** "9:41" left, to the second. */
const left = (seconds: number): string => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;

function Reach({ url }: { url: string }) {
  const reach = phoneReach(url);
  const host = new URL(url).host;
  if (reach === 'never') {
    return <p class="notice warn" role="note" id="phone-unreachable">A phone cannot open this: VID runs at {host}, an address only this computer knows. Whoever runs VID can give it an address phones can reach.</p>;
  }
  if (reach === 'same-network') {
    return <p class="notice" role="note" id="phone-same-network">VID runs at {host}, a private address: the phone must be on the same Wi-Fi as this server, now and whenever it syncs.</p>;
  }
  return null;
}

/** Where the phone is: waiting for the link, has its password, has synced. */
function Progress({ state, phone, expired }: { state: LinkState | undefined; phone: Phone | undefined; expired: boolean }) {
  if (phone?.last_used_at) return <p class="msg ok" role="status" id="phone-connected"><strong>{phone.label} is connected.</strong> It synced the people you follow. You can close this.</p>;
  if (state?.state === 'used') return <p class="msg" role="status" id="phone-opened">{phone?.label ?? 'The phone'} has its password. Waiting for its first sync…</p>;
  if (expired || state?.state === 'expired') return <p class="msg error" role="status" id="phone-link-expired">This code has expired unused. Close it and add the phone again.</p>;
  return <p class="msg" role="status" id="phone-waiting">Waiting for the phone…</p>;
}

function SetUpPanel({ link, onClose }: { link: Link; onClose: () => void }) {
  const state = useResource<LinkState>(`/dav-setup-links/${link.id}`);
  const phones = useResource<ListPage<Phone>>(PHONES);
  const phone = phones.data?.data.find((p) => p.id === state.data?.dav_token_id);
  const remaining = useSecondsLeft(link.expires_at);
  const waiting = (state.data?.state ?? 'waiting') === 'waiting' && remaining > 0;
  const lead = useRef<HTMLParagraphElement>(null);
  useEffect(() => lead.current?.focus(), []);
  const close = useAction(async () => {
    // A link still waiting is withdrawn: a code left on a screen must not work after it closes.
    if (waiting) await client.request('DELETE', '/dav-setup-links/{id}', { params: { id: link.id } });
    onClose();
  });
  const shortUrl = `${new URL(link.url).host}/p`;
  return (
    <Section title="Scan with the phone" id="phone-setup">
      {waiting ? <Reach url={link.url} /> : null}
      {waiting ? (
        <div class="setup-scan">
          <Qr url={link.url} label="QR code: scan it with the phone’s camera" />
          <div>
            <p tabIndex={-1} ref={lead}>Open the phone’s camera and point it at the code. Tap the link it shows.</p>
            <p>No camera? On the phone, open <strong id="phone-short-url">{shortUrl}</strong> and type <strong class="setup-code" id="phone-code">{link.code}</strong></p>
            <p class="hint" id="phone-countdown">Works once, for {left(remaining)} more.</p>
          </div>
        </div>
      ) : null}
      <Progress state={state.data} phone={phone} expired={remaining <= 0} />
      {waiting ? <p class="hint">Setting up this device itself? <a href={link.url} id="setup-here" target="_blank" rel="noopener">Open the link here</a>.</p> : null}
      <div class="actions">
        <button type="button" id="phone-setup-close" class={phone?.last_used_at ? 'primary' : ''} disabled={close.busy} onClick={() => void close.run()}>{phone?.last_used_at ? 'Done' : 'Close'}</button>
      </div>
      <FormError action={close} />
    </Section>
  );
}

/** By hand: a password to type into another app (shown once). */
function TypedPassword({ created, onDone }: { created: Created; onDone: () => void }) {
  const notice = useRef<HTMLParagraphElement>(null);
  useEffect(() => notice.current?.focus(), []);
  return (
    <Section title={`Set up ${created.label}`} id="phone-typed">
      <p class="notice once" role="note" tabIndex={-1} ref={notice}>
        <strong>This password is shown only now.</strong> Once you leave this page it cannot be shown again. Lost it? Revoke it below and make another.
      </p>
      <Credentials created={created} />
      <details class="how">
        <summary>iPhone or iPad by hand</summary>
        <p>Settings → Apps → Contacts → Contacts Accounts → Add Account → Other → Add CardDAV Account. Server: the Server above. User Name and Password: the ones above. Then Next.</p>
      </details>
      <details class="how">
        <summary>Android (DAVx5)</summary>
        <p>Install DAVx5 from Google Play or F-Droid. Tap +, then “Login with URL and user name”. Base URL: the Server URL above; then the username and the password. Tap Login, then Create account, and tick “People I follow”.</p>
      </details>
      <details class="how">
        <summary>Thunderbird</summary>
        <p>Address Book → New Address Book → Add CardDAV Address Book. Username: the one above. Location: the Server URL above. Continue, give the password when asked, and tick “People I follow”.</p>
      </details>
      <div class="actions">
        <button type="button" class="primary" id="phone-done" onClick={onDone}>Done, it is set up</button>
      </div>
    </Section>
  );
}

function PhoneItem({ phone }: { phone: Phone }) {
  const [confirming, setConfirming] = useState(false);
  const revoke = useAction(async () => {
    await client.request('DELETE', '/dav-tokens/{id}', { params: { id: phone.id } });
  }, { done: `${phone.label} no longer syncs.` });
  return (
    <li data-phone={phone.id}>
      <div class="item-main">
        <strong>{phone.label}</strong>
        <div class="item-meta">{[phone.device_label, lastSync(phone.last_used_at), `added ${day(phone.created_at)}`].filter(Boolean).join(' · ')}</div>
        {confirming ? (
          <Confirm label={`Revoke ${phone.label}?`} verb="Revoke" action={revoke} onKeep={() => (setConfirming(false), revoke.clear())}>
            Revoke “{phone.label}”? It stops syncing at once. The cards it already has stay on it until you remove the account there.
          </Confirm>
        ) : null}
        <FormError action={revoke} />
      </div>
      {confirming ? null : (
        <button type="button" class="danger subtle" onClick={() => setConfirming(true)} aria-label={`Revoke ${phone.label}`}>Revoke</button>
      )}
    </li>
  );
}

function RevokeAll({ count }: { count: number }) {
  const [confirming, setConfirming] = useState(false);
  const revoke = useAction(async () => {
    await client.request('DELETE', '/dav-tokens');
    setConfirming(false);
  }, { done: 'No phone syncs your contacts any more.' });
  if (count < 2) return null;
  return confirming ? (
    <Confirm label="Revoke every phone?" verb="Revoke all" action={revoke} keep="Keep them" onKeep={() => (setConfirming(false), revoke.clear())} failure={revoke}>
      Revoke all {count} phones? None of them syncs again until you add it again.
    </Confirm>
  ) : (
    <div class="actions">
      <button type="button" class="danger subtle" id="revoke-all" onClick={() => setConfirming(true)}>Revoke all</button>
    </div>
  );
}

function AddPhone({ full, onLink, onTyped }: { full: boolean; onLink: (link: Link) => void; onTyped: (created: Created) => void }) {
  const label = useDraft('');
  const id = useId();
  const boxes = { '/label': { name: 'name', maxLength: LIMITS.davTokenLabel } };
  const add = useAction(async () => {
    const name = label.value.trim();
    const link = await client.request('POST', '/dav-setup-links', { body: name ? { label: name } : {}, stepUp });
    label.reset();
    onLink(link as Link);
  }, { boxes });
  const type = useAction(async () => {
    const created = await client.request('POST', '/dav-tokens', { body: { label: label.value.trim() || 'Address book' }, stepUp });
    label.reset();
    onTyped(created as Created);
  }, { boxes });
  if (full) {
    return <p class="notice" role="note" id="phone-limit">You have {PHONE_LIMIT} phones set up, the most there can be. Revoke one you no longer use to add another.</p>;
  }
  return (
    <form class="inline-form" id="add-phone" onSubmit={(e) => (e.preventDefault(), void add.run())}>
      <TextField id={id} label="Name this phone" optional maxLength={LIMITS.davTokenLabel} autocomplete="off" value={label.value} onValue={label.set} error={add.box('/label') ?? type.box('/label')}
        hint="Such as “Alice’s iPhone”. Left empty, it is named after the phone." />
      <button type="submit" class="primary" disabled={add.busy}>Add a phone</button>
      <FormError action={add} />
      <p class="hint">Another app, such as Thunderbird? <button type="button" class="subtle" id="type-password" disabled={type.busy} onClick={() => void type.run()}>Make a password to type instead</button></p>
      <FormError action={type} />
    </form>
  );
}

export default function PhoneContacts() {
  const phones = useResource<ListPage<Phone>>(PHONES);
  const [link, setLink] = useState<Link | undefined>(undefined);
  const [typed, setTyped] = useState<Created | undefined>(undefined);
  const trusted = useValue(session)?.trusted ?? false;
  const count = phones.data?.data.length ?? 0;
  const busy = link || typed;
  return (
    <>
      <PageHead title="Phone contacts" lead="See the people you follow in your phone’s own Contacts app." />
      {link ? <SetUpPanel link={link} onClose={() => setLink(undefined)} /> : null}
      {typed ? <TypedPassword created={typed} onDone={() => setTyped(undefined)} /> : null}
      {busy ? null : (
        <Section title="Add a phone" id="phone-add">
          <ul class="facts">
            <li>Everyone you follow appears in an address book called “People I follow”, with the card they show you.</li>
            <li>It stays current by itself: when someone changes their card, your phone gets the change at its next sync. When they stop sharing with you, they leave it.</li>
            <li>It is read-only. To change what you see, people change their own cards.</li>
          </ul>
          <p class="hint">You scan a code with the phone, and it sets itself up: nothing to type. Each phone gets its own password, which you can revoke any time.</p>
          {trusted ? null : <p class="notice" role="note">This device is signed in for now only. Adding a phone needs a device you keep.</p>}
          {phones.data ? <AddPhone full={count >= PHONE_LIMIT} onLink={setLink} onTyped={setTyped} /> : null}
        </Section>
      )}
      <Section title="Your phones" id="phones-section">
        <Loaded state={phones} lines={2}>
          {(page) => page.data.length ? (
            <ul class="items" id="phones">{page.data.map((p) => <PhoneItem key={p.id} phone={p} />)}</ul>
          ) : <Empty>No phone yet. Add one above.</Empty>}
        </Loaded>
        <RevokeAll count={count} />
      </Section>
    </>
  );
}
