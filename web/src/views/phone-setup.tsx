// /p/#<token>: the page a phone opens from the QR code of Phone contacts (PRODUCT §9, decision
// 300), or /p/ where the short code is typed instead. Opening it uses nothing: a link preview or
// a prefetch can load it freely. The person's tap uses the link, once, and the password reaches
// the phone's own Contacts without being typed:
// - iPhone, iPad, Mac: a real form post, so the browser hands the configuration profile to
//   Settings (a file made in the page would not install);
// - Android: DAVx5's login, every value filled, through Chrome's intent link;
// - anything else: the values, each with a copy button.
import type { Schemas } from '../../../client/src/api.js';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { client } from '../core/client.js';
import { FormError, TextField, useAction } from '../ui/form.js';
import { Credentials } from '../ui/credentials.js';
import './phone-contacts.css';

type Redeemed = Schemas['RedeemedSetupLink'];
type Platform = 'apple' | 'android' | 'other';

/** Which hand-over this device takes, from its browser's own description of itself. */
export function platformOf(userAgent: string): Platform {
  if (/iPhone|iPad|iPod|Macintosh/.test(userAgent)) return 'apple';
  if (/Android/.test(userAgent)) return 'android';
  return 'other';
}

/** What a refused form post comes back with (?problem=), in words. */
const PROBLEMS: Record<string, string> = {
  setup_link_gone: 'This setup link was used already or has expired. On the device where you are signed in, open Phone contacts and make a new one.',
  validation_failed: 'That code is not right. It has eight letters and digits, like K7QX-M2PD.',
  too_many_requests: 'Too many tries from here. Wait a minute, then try again.',
  dav_token_limit: 'Your account has 10 phones set up, the most there can be. Revoke one under Phone contacts first.',
};

const tokenFromHash = (): string | undefined => (/^#[A-Za-z0-9_-]{32}$/.test(location.hash) ? location.hash.slice(1) : undefined);

function AppleSteps({ mac }: { mac: boolean }) {
  return mac ? (
    <ol class="steps" id="apple-steps">
      <li>Allow the download if asked.</li>
      <li>Open System Settings → General → Device Management, and double-click “VID contacts”.</li>
      <li>Click Install, and give your Mac’s password.</li>
    </ol>
  ) : (
    <ol class="steps" id="apple-steps">
      <li>Tap Allow when asked about a configuration profile.</li>
      <li>Open Settings. Tap “Profile Downloaded” near the top.</li>
      <li>Tap Install, enter your passcode, then Install again.</li>
    </ol>
  );
}

/** iPhone, iPad, Mac: the form the browser posts itself, so the file goes to Settings. */
function AppleInstall({ secret }: { secret: { token?: string; code?: string } }) {
  const [sent, setSent] = useState(false);
  const mac = /Macintosh/.test(navigator.userAgent) && navigator.maxTouchPoints < 2;
  return (
    <>
      <form method="post" action="/api/v1/dav-setup-links/profile" id="install-profile" onSubmit={() => setSent(true)}>
        {secret.token ? <input type="hidden" name="token" value={secret.token} /> : null}
        {secret.code ? <input type="hidden" name="code" value={secret.code} /> : null}
        <button type="submit" class="primary wide" disabled={sent}>{mac ? 'Install on this Mac' : 'Install on this iPhone'}</button>
      </form>
      {sent ? <p class="notice" role="status">The profile is on its way. Then:</p> : <p class="hint">Your device then asks you to install it. It calls the profile “Unverified”: it is made for you here, not signed by a company.</p>}
      <AppleSteps mac={mac} />
    </>
  );
}

function AndroidHandover({ phone }: { phone: Redeemed }) {
  const open = useRef<HTMLAnchorElement>(null);
  useEffect(() => open.current?.focus(), []);
  return (
    <>
      <p>Your phone has its password. Open DAVx5 to finish: its login comes filled in.</p>
      <div class="actions">
        <a class="button primary wide" id="open-davx5" ref={open} href={phone.android_intent_url}>Open DAVx5</a>
      </div>
      <ol class="steps">
        <li>In DAVx5, tap Login, then Create account.</li>
        <li>Tick “People I follow” and let it sync.</li>
      </ol>
      <p class="hint">No DAVx5 yet? The button offers it from Google Play; it is on F-Droid too. Another browser than Chrome? Try <a href={phone.davx5_url} id="davx5-link">this link</a> instead.</p>
      <details class="how">
        <summary>Type the settings instead</summary>
        <Credentials created={phone} />
      </details>
    </>
  );
}

function Values({ phone }: { phone: Redeemed }) {
  return (
    <>
      <p>Your password is made. Enter these in your address book’s “CardDAV account” settings.</p>
      <Credentials created={phone} />
    </>
  );
}

/** Uses the link as JSON: the password and DAVx5's hand-over. */
function Redeem({ secret, label, onRedeemed }: { secret: { token?: string; code?: string }; label: string; onRedeemed: (phone: Redeemed) => void }) {
  const redeem = useAction(async () => {
    onRedeemed(await client.request('POST', '/dav-setup-links/redeem', { auth: 'none', body: secret }) as Redeemed);
  }, { boxes: { '/code': { name: 'code' } } });
  return (
    <>
      <div class="actions">
        <button type="button" class="primary wide" id="redeem" disabled={redeem.busy} onClick={() => void redeem.run()}>{label}</button>
      </div>
      <FormError action={redeem} />
    </>
  );
}

/** No link in the address: the code from the other screen, typed. */
function CodeForm({ onCode }: { onCode: (code: string) => void }) {
  const [code, setCode] = useState('');
  const id = useId();
  return (
    <form class="inline-form" id="code-form" onSubmit={(e) => (e.preventDefault(), code.trim() && onCode(code.trim()))}>
      <TextField id={id} label="Code" value={code} onValue={setCode} autocomplete="one-time-code" autocapitalize="characters" spellcheck={false} maxLength={12} required
        hint="The eight letters and digits under the QR code, like K7QX-M2PD." />
      <button type="submit" class="primary" disabled={!code.trim()}>Continue</button>
    </form>
  );
}

export default function PhoneSetup() {
  const platform = platformOf(navigator.userAgent);
  const [token] = useState(tokenFromHash);
  const [code, setCode] = useState<string | undefined>(undefined);
  const [plain, setPlain] = useState(false);
  const [phone, setPhone] = useState<Redeemed | undefined>(undefined);
  const problem = new URLSearchParams(location.search).get('problem');
  const secret = token ? { token } : code ? { code } : undefined;
  const heading = useRef<HTMLHeadingElement>(null);
  // A typed code replaced the form: the focus goes back to the top of what changed.
  useEffect(() => void (code && heading.current?.focus()), [code]);
  return (
    <div class="public-page">
      <section class="card" id="phone-setup-page">
        <h1 tabIndex={-1} ref={heading}>Add your contacts to this phone</h1>
        <p>The people you follow on VID appear in this device’s own Contacts app, and stay current by themselves. Read-only.</p>
        {problem && !secret ? <p class="msg error" role="alert" id="setup-problem">{PROBLEMS[problem] ?? PROBLEMS.setup_link_gone}</p> : null}
        {phone ? (platform === 'android' && !plain ? <AndroidHandover phone={phone} /> : <Values phone={phone} />) : !secret ? <CodeForm onCode={setCode} /> : plain || platform === 'other' ? (
          <Redeem secret={secret} label="Show the settings" onRedeemed={setPhone} />
        ) : platform === 'apple' ? (
          <AppleInstall secret={secret} />
        ) : (
          <Redeem secret={secret} label="Set up with DAVx5" onRedeemed={setPhone} />
        )}
        {secret && !phone && !plain && platform !== 'other' ? (
          <p class="hint"><button type="button" class="subtle" id="show-values" onClick={() => setPlain(true)}>Another app? Show the settings to type instead</button></p>
        ) : null}
        {phone ? null : <p class="hint">This link works once, for a few minutes. Nothing is used until you tap.</p>}
      </section>
    </div>
  );
}
