// How you sign in: passkeys (named, renamable, this device marked), authenticator apps (the
// secret in groups of four, a copy button and a link for an app on this phone), the recovery
// key (when it was last downloaded, and what a download does), and recent activity.
import { useEffect, useId, useState } from 'preact/hooks';
import type { Schemas } from '../../../client/src/api.js';
import { cache, useResource } from '../core/cache.js';
import type { ListPage } from '../core/cache.js';
import { client, session } from '../core/client.js';
import { useValue } from '../core/state.js';
import { LIMITS } from '../core/limits.js';
import { Confirm, FormError, TextField, useAction, useDraft } from '../ui/form.js';
import { Empty, Loaded, PageHead, Section } from '../ui/layout.js';
import { ago, day } from '../ui/words.js';
import { createCredential, stepUp } from '../webauthn.js';
import { RecentActivity } from './security-activity.js';

type Passkey = Schemas['Passkey'] & { current?: boolean };
type Totp = Schemas['TotpAuthenticator'];
interface RecoveryState { created_at: string; downloaded_at: string | null }

const PASSKEY_NAME_MAX = LIMITS.passkeyName;
const PASSKEYS = '/auth/methods?limit=200';
const TOTPS = '/auth/totp';
const RECOVERY = '/auth/recovery-key/state';

/** This device's key thumbprint: the passkey last used with it is "this device" (older servers say `current`). */
function useDeviceKey(): string | undefined {
  const [jkt, setJkt] = useState<string | undefined>(undefined);
  useEffect(() => void client.jkt().then(setJkt).catch(() => undefined), []);
  return jkt;
}

function PasskeyItem({ p, here, only }: { p: Passkey; here: boolean; only: boolean }) {
  const [renaming, setRenaming] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const name = useDraft(p.name);
  const id = useId();
  const rename = useAction(async () => {
    await client.request('PATCH', '/auth/methods/{id}', { params: { id: p.id }, body: { name: name.value.trim() }, ifMatch: p.version });
    name.reset();
    setRenaming(false);
  }, { done: 'Passkey renamed.', boxes: { '/name': { name: 'name', maxLength: PASSKEY_NAME_MAX } } });
  const remove = useAction(async () => {
    await client.request('DELETE', '/auth/methods/{id}', { params: { id: p.id }, stepUp });
  }, { done: 'Passkey removed.' });
  return (
    <li data-passkey={p.id}>
      {renaming ? (
        <form class="item-main rename" onSubmit={(e) => (e.preventDefault(), void rename.run())}>
          <TextField id={id} label="Passkey name" maxLength={PASSKEY_NAME_MAX} required autocomplete="off" value={name.value} onValue={name.set} error={rename.box('/name')}
            hint="Name it after where it lives, such as “iPhone” or “Work laptop”." />
          <div class="actions">
            <button type="submit" class="primary" disabled={rename.busy || !name.value.trim()}>Save name</button>
            <button type="button" onClick={() => (name.reset(), rename.clear(), setRenaming(false))}>Cancel</button>
          </div>
          <FormError action={rename} />
        </form>
      ) : (
        <>
          <div class="item-main">
            <strong>{p.name}</strong>
            {here ? <span class="tag">This device</span> : null}
            <div class="item-meta">{[`Added ${day(p.created_at)}`, p.last_used_at ? `last used ${ago(p.last_used_at)}` : 'not used yet', p.backed_up ? 'synced across your devices' : ''].filter(Boolean).join(' · ')}</div>
            {p.flagged ? <p class="msg error">This passkey may have been copied. Remove it unless you are sure it is yours.</p> : null}
            {confirming ? (
              <Confirm label={`Remove ${p.name}?`} verb="Remove" action={remove} onKeep={() => (setConfirming(false), remove.clear())}>
                {here ? 'This is the passkey of this device. ' : ''}Remove “{p.name}”? It will not sign in to VID any more.
              </Confirm>
            ) : null}
            <FormError action={remove} />
          </div>
          {confirming ? null : (
            <div class="actions">
              <button type="button" onClick={() => setRenaming(true)} aria-label={`Rename ${p.name}`}>Rename</button>
              <button type="button" class="danger subtle" disabled={only} title={only ? 'Add another passkey first' : undefined}
                onClick={() => setConfirming(true)} aria-label={`Remove ${p.name}`}>Remove</button>
            </div>
          )}
        </>
      )}
    </li>
  );
}

function Passkeys() {
  const passkeys = useResource<ListPage<Passkey>>(PASSKEYS);
  const jkt = useDeviceKey();
  const add = useAction(async () => {
    const begin = await client.request('POST', '/auth/methods/passkeys/begin', { stepUp });
    const credential = await createCredential(begin.options);
    await client.request('POST', '/auth/methods/passkeys/finish', { body: { ceremony_id: begin.ceremony_id, credential: credential as never } });
  }, { done: 'Passkey added.' });
  return (
    <Section title="Passkeys" id="passkeys-section">
      <p class="hint">Keep more than one: on another phone, a computer or a security key.</p>
      <Loaded state={passkeys}>
        {(page) => {
          const here = page.data.find((p) => p.current) ?? page.data.find((p) => p.dpop_jkt === jkt);
          return (
            <ul class="items" id="passkeys">
              {page.data.map((p) => <PasskeyItem key={p.id} p={p} here={p === here} only={page.data.length === 1} />)}
            </ul>
          );
        }}
      </Loaded>
      <div class="actions">
        <button type="button" id="add-passkey" disabled={add.busy} onClick={() => void add.run()}>Add a passkey</button>
      </div>
      <FormError action={add} />
    </Section>
  );
}

/** "JBSW Y3DP EHPK 3PXP": easier to read and type from one screen to another. */
export const inFours = (secret: string): string => secret.replace(/\s+/g, '').match(/.{1,4}/g)?.join(' ') ?? secret;

interface Enrolment { id: string; secret: string; otpauth_uri: string }

function TotpEnrol({ enrolment, onDone }: { enrolment: Enrolment; onDone: () => void }) {
  const [svg, setSvg] = useState<string | undefined>(undefined);
  const [code, setCode] = useState('');
  const id = useId();
  useEffect(() => {
    // The QR code drawer is loaded when needed (kept out of the first download).
    void import('qrcode').then((QRCode) => QRCode.toString(enrolment.otpauth_uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' })).then(setSvg).catch(() => undefined);
  }, [enrolment.otpauth_uri]);
  const confirm = useAction(async () => {
    await client.request('POST', '/auth/totp/{id}/confirm', { params: { id: enrolment.id }, body: { code: code.trim() } });
    onDone();
  }, { done: 'Authenticator app confirmed.', boxes: { '/code': { name: 'code' } } });
  const copy = useAction(async () => {
    await navigator.clipboard.writeText(enrolment.secret);
  }, { done: 'Secret copied.' });
  return (
    <div class="enrol" id="totp-enrol">
      <p>Scan this with your authenticator app, or enter the secret by hand. It is shown only now.</p>
      {/* An SVG string from the qrcode library: no script, no inline style, so the CSP holds. */}
      {svg ? <div class="qr" role="img" aria-label="QR code for your authenticator app" dangerouslySetInnerHTML={{ __html: svg }} /> : <div class="qr placeholder" aria-hidden="true" />}
      <p class="secret-row">
        <span class="secret" id="totp-secret" aria-label={`Secret ${enrolment.secret.split('').join(' ')}`}>{inFours(enrolment.secret)}</span>
      </p>
      <div class="actions">
        <button type="button" onClick={() => void copy.run()}>Copy the secret</button>
        <a class="button" href={enrolment.otpauth_uri}>Open in an app on this phone</a>
      </div>
      <form onSubmit={(e) => (e.preventDefault(), void confirm.run())}>
        <TextField id={id} label="First code the app shows" inputMode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxLength={6} required
          value={code} onValue={setCode} error={confirm.box('/code')} />
        <div class="actions">
          <button type="submit" class="primary" disabled={confirm.busy}>Confirm</button>
          <button type="button" onClick={onDone}>Cancel</button>
        </div>
        <FormError action={confirm} />
      </form>
    </div>
  );
}

function TotpItem({ t }: { t: Totp }) {
  const remove = useAction(async () => {
    await client.request('DELETE', '/auth/totp/{id}', { params: { id: t.id }, stepUp });
  }, { done: 'Authenticator app removed.' });
  return (
    <li data-totp={t.id}>
      <div class="item-main">
        <strong>{t.name}</strong>
        <div class="item-meta">{t.active ? `Active since ${day(t.confirmed_at)}` : 'Not confirmed yet'}</div>
        <FormError action={remove} />
      </div>
      <button type="button" class="danger subtle" disabled={remove.busy} onClick={() => void remove.run()} aria-label={`Remove ${t.name}`}>Remove</button>
    </li>
  );
}

function AuthenticatorApps() {
  const totps = useResource<ListPage<Totp>>(TOTPS);
  const [enrolment, setEnrolment] = useState<Enrolment | undefined>(undefined);
  const name = useDraft('Authenticator app');
  const id = useId();
  const start = useAction(async () => {
    const started = await client.request('POST', '/auth/totp', { body: { name: name.value.trim() }, stepUp });
    setEnrolment(started as Enrolment);
  }, { boxes: { '/name': { name: 'name', maxLength: LIMITS.totpName } } });
  return (
    <Section title="Authenticator apps" id="totp-section">
      <p class="hint">A code from an app such as Google Authenticator, asked for when you recover your account.</p>
      <Loaded state={totps} lines={1}>
        {(page) => page.data.length ? <ul class="items" id="totps">{page.data.map((t) => <TotpItem key={t.id} t={t} />)}</ul> : <Empty>No authenticator app yet.</Empty>}
      </Loaded>
      {enrolment ? <TotpEnrol enrolment={enrolment} onDone={() => setEnrolment(undefined)} /> : (
        <form class="inline-form" onSubmit={(e) => (e.preventDefault(), void start.run())}>
          <TextField id={id} label="App name" maxLength={LIMITS.totpName} required value={name.value} onValue={name.set} error={start.box('/name')} />
          <button type="submit" disabled={start.busy}>Add an authenticator app</button>
          <FormError action={start} />
        </form>
      )}
    </Section>
  );
}

function RecoveryKey() {
  const state = useResource<RecoveryState>(RECOVERY);
  const download = useAction(async () => {
    const text = await client.request('GET', '/auth/recovery-key', { stepUp });
    const url = URL.createObjectURL(new Blob([String(text)], { type: 'text/plain' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'vid-recovery-key.txt';
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    // A read that changes state (the download is logged and dated): no change the client hears.
    await Promise.all([cache.invalidate(RECOVERY), cache.invalidate('/auth/security-log')]);
  }, { done: 'Recovery key downloaded. Keep it offline.' });
  const downloaded = state.data?.downloaded_at;
  return (
    <Section title="Recovery key" id="recovery">
      <p>The way back in if you lose every device. Keep it offline, such as printed in a drawer.</p>
      {state.data ? (
        <p class="item-meta" id="recovery-state">{downloaded ? `Last downloaded ${day(downloaded)} (${ago(downloaded)}).` : 'Not downloaded yet: download it now.'}</p>
      ) : null}
      <p class="hint">Downloading again gives you the same key: copies you kept before keep working.</p>
      <div class="actions">
        <button type="button" id="download-recovery" class={downloaded ? undefined : 'primary'} disabled={download.busy} onClick={() => void download.run()}>Download recovery key</button>
      </div>
      <FormError action={download} />
    </Section>
  );
}

export default function Security() {
  const trusted = useValue(session)?.trusted ?? false;
  return (
    <>
      <PageHead title="Security" lead="How you sign in, and what happened lately." />
      {trusted ? null : <p class="notice" role="note">This device is signed in for now only. Changing how you sign in needs a device you keep.</p>}
      <Passkeys />
      <AuthenticatorApps />
      <RecoveryKey />
      <RecentActivity />
    </>
  );
}
