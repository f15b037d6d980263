// Phone contacts (PRODUCT §9, docs/carddav.md): the people you follow in the phone's own Contacts
// app. Adding a phone makes an address-book password (POST /dav-tokens, after a passkey check);
// its answer is shown once: the server, username and password to type, a configuration profile
// for iPhone and Mac written here from that answer (ui/mobileconfig.ts), and the steps for
// Android (DAVx5) and Thunderbird. Below, every phone with its last sync, revoked one by one or
// all at once; the list follows `dav-tokens.changed` from every device.
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useMemo, useRef, useState } from 'preact/hooks';
import type { Me } from '../../../client/src/index.js';
import type { Schemas } from '../../../client/src/api.js';
import { cache, useResource } from '../core/cache.js';
import type { ListPage } from '../core/cache.js';
import { client, session } from '../core/client.js';
import { useValue } from '../core/state.js';
import { LIMITS } from '../core/limits.js';
import { Confirm, FormError, TextField, useAction, useDraft } from '../ui/form.js';
import { Empty, Loaded, PageHead, Section } from '../ui/layout.js';
import { carddavProfile, MOBILECONFIG_TYPE } from '../ui/mobileconfig.js';
import { ago, day } from '../ui/words.js';
import { stepUp } from '../webauthn.js';
import './phone-contacts.css';

type Phone = Schemas['DavToken'];
type Created = Schemas['CreatedDavToken'];

const PHONES = '/dav-tokens';
/** At most this many at once (the server's DAV_TOKEN_LIMITS.perAccount; test/web/limits.test.ts). */
export const PHONE_LIMIT = LIMITS.davTokens;

/** "Last synced 5 minutes ago" or "Never synced yet". */
export const lastSync = (iso: string | null, now = Date.now()): string => (iso ? `Last synced ${ago(iso, now)}` : 'Never synced yet');

/** The password in groups of four, so it can be read off one screen and typed on another. */
export const groups = (secret: string): string[] => secret.match(/.{1,4}/gu) ?? [secret];

/** What the iPhone's "Server" box takes: the host, with its port when it is not the usual one. */
const hostOf = (serverUrl: string): string => new URL(serverUrl).host;

function Copy({ what, value }: { what: string; value: string }) {
  const copy = useAction(async () => navigator.clipboard.writeText(value), { done: `${what} copied.` });
  return (
    <button type="button" class="subtle copy" disabled={copy.busy} onClick={() => void copy.run()} aria-label={`Copy the ${what}`}>
      Copy
    </button>
  );
}

function Value({ label, value, id, children }: { label: string; value: string; id: string; children?: ComponentChildren }) {
  return (
    <div class="credential">
      <dt>{label}</dt>
      <dd>
        <span class="credential-value" id={id}>{children ?? value}</span>
        <Copy what={label} value={value} />
      </dd>
    </div>
  );
}

/** The file a tap installs: made once per password, here; the link lives while this view does. */
function useProfileLink(created: Created, accountId: string | undefined): string | undefined {
  const url = useMemo(() => {
    if (!accountId) return undefined;
    const text = carddavProfile({
      serverUrl: created.server_url,
      username: accountId,
      password: created.secret,
      accountId,
      tokenId: created.id,
      label: created.label,
    });
    return URL.createObjectURL(new Blob([text], { type: MOBILECONFIG_TYPE }));
  }, [created, accountId]);
  useEffect(() => () => (url ? URL.revokeObjectURL(url) : undefined), [url]);
  return url;
}

function SetUp({ created, onDone }: { created: Created; onDone: () => void }) {
  const me = useResource<Me>('/me');
  const profile = useProfileLink(created, me.data?.id);
  // The form that made it is gone: bring the person (and the focus) to what to do next.
  const notice = useRef<HTMLParagraphElement>(null);
  useEffect(() => notice.current?.focus(), []);
  return (
    <Section title={`Set up ${created.label}`} id="phone-setup">
      <p class="notice once" role="note" tabIndex={-1} ref={notice}>
        <strong>This password is shown only now.</strong> Once you leave this page it cannot be shown again. Lost it? Revoke this phone below and add it again.
      </p>

      <h3>iPhone, iPad or Mac: install the profile</h3>
      <p>On the iPhone or Mac itself, tap the button. Then, on iPhone: Settings → Profile Downloaded → Install. On a Mac: System Settings → Privacy &amp; Security → Profiles → Install. On another device, type the values below instead.</p>
      <div class="actions">
        {profile ? (
          <a class="button primary" id="download-profile" href={profile} download="VID contacts.mobileconfig">Install on iPhone or Mac</a>
        ) : null}
      </div>
      <p class="hint">Your device calls the profile “Unverified”: it was made on this page, for you, rather than signed by a company.</p>

      <h3>Or type these in</h3>
      <dl class="credentials">
        <Value label="Server" value={hostOf(created.server_url)} id="phone-server" />
        <Value label="Server URL" value={created.server_url} id="phone-server-url" />
        <Value label="Username" value={created.username} id="phone-username" />
        <Value label="Password" value={created.secret} id="phone-password">
          <span class="password" data-secret={created.secret}>
            {groups(created.secret).map((group, i) => <span key={i} class="group">{group}</span>)}
          </span>
        </Value>
      </dl>
      <p class="hint">Type the password without spaces; capitals count. Copy puts it on this device’s clipboard exactly.</p>

      <details class="how">
        <summary>iPhone or iPad by hand</summary>
        <p>Settings → Contacts → Accounts → Add Account → Other → Add CardDAV Account. Server: the Server above. User Name and Password: the ones above. Then Next.</p>
      </details>
      <details class="how">
        <summary>Android (DAVx5)</summary>
        <p>Install DAVx5 from the Play Store or F-Droid. Tap +, then “Login with URL and user name”. Base URL: the Server URL above; then the username and the password. Tap Login, then Create account, and tick “People I follow”. DAVx5 syncs every few hours; its account settings can make it more often.</p>
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
    await cache.invalidate(PHONES);
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
    await cache.invalidate(PHONES);
    setConfirming(false);
  }, { done: 'No phone syncs your contacts any more.' });
  if (count < 2) return null;
  return confirming ? (
    <div class="confirm" role="group" aria-label="Revoke every phone?">
      <p>Revoke all {count} phones? None of them syncs again until you add it again.</p>
      <div class="actions">
        <button type="button" class="danger" disabled={revoke.busy} onClick={() => void revoke.run()}>Revoke all</button>
        <button type="button" onClick={() => (setConfirming(false), revoke.clear())}>Keep them</button>
      </div>
      <FormError action={revoke} />
    </div>
  ) : (
    <div class="actions">
      <button type="button" class="danger subtle" id="revoke-all" onClick={() => setConfirming(true)}>Revoke all</button>
    </div>
  );
}

function AddPhone({ full, onCreated }: { full: boolean; onCreated: (created: Created) => void }) {
  const label = useDraft('');
  const id = useId();
  const add = useAction(async () => {
    const created = await client.request('POST', '/dav-tokens', { body: { label: label.value.trim() }, stepUp });
    label.reset();
    onCreated(created as Created);
    await cache.invalidate(PHONES);
  }, { boxes: { '/label': { name: 'name', maxLength: LIMITS.davTokenLabel } } });
  if (full) {
    return <p class="notice" role="note" id="phone-limit">You have {PHONE_LIMIT} phones set up, the most there can be. Revoke one you no longer use to add another.</p>;
  }
  return (
    <form class="inline-form" id="add-phone" onSubmit={(e) => (e.preventDefault(), void add.run())}>
      <TextField id={id} label="Name this phone" maxLength={LIMITS.davTokenLabel} required autocomplete="off" value={label.value} onValue={label.set} error={add.box('/label')}
        hint="Such as “Alice’s iPhone” or “Work laptop”: it names the phone in your list." />
      <button type="submit" class="primary" disabled={add.busy || !label.value.trim()}>Add a phone</button>
      <FormError action={add} />
    </form>
  );
}

export default function PhoneContacts() {
  const phones = useResource<ListPage<Phone>>(PHONES);
  const [created, setCreated] = useState<Created | undefined>(undefined);
  const trusted = useValue(session)?.trusted ?? false;
  const count = phones.data?.data.length ?? 0;
  return (
    <>
      <PageHead title="Phone contacts" lead="See the people you follow in your phone’s own Contacts app." />
      {created ? <SetUp created={created} onDone={() => setCreated(undefined)} /> : null}
      {created ? null : (
        <Section title="Add a phone" id="phone-add">
          <ul class="facts">
            <li>Everyone you follow appears in an address book called “People I follow”, with the card they show you.</li>
            <li>It stays current by itself: when someone changes their card, your phone gets the change at its next sync. When they stop sharing with you, they leave it.</li>
            <li>It is read-only. To change what you see, people change their own cards.</li>
          </ul>
          <p class="hint">Each phone or computer gets its own password, made here and shown once. You can revoke it any time. Adding an iPhone or Mac from that device itself sets it up in one tap.</p>
          {trusted ? null : <p class="notice" role="note">This device is signed in for now only. Adding a phone needs a device you keep.</p>}
          {phones.data ? <AddPhone full={count >= PHONE_LIMIT} onCreated={setCreated} /> : null}
        </Section>
      )}
      <Section title="Your phones" id="phones-section">
        <Loaded state={phones} lines={2}>
          {(page) => page.data.length ? (
            <ul class="items" id="phones">{page.data.map((p) => <PhoneItem key={p.id} phone={p} />)}</ul>
          ) : <Empty>No phone yet. Name one above and add it.</Empty>}
        </Loaded>
        <RevokeAll count={count} />
      </Section>
    </>
  );
}
