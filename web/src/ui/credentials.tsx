// The values an address book is set up with by hand (Phone contacts, and the phone's own setup
// page): server, user name and password, each with a copy button; the password in groups of four
// that copy as one string (the groups are spaced by margins, not by characters).
import type { ComponentChildren } from 'preact';
import type { Schemas } from '../../../client/src/api.js';
import { useAction } from './form.js';

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

export function Credentials({ created }: { created: Pick<Schemas['CreatedDavToken'], 'server_url' | 'username' | 'secret'> }) {
  return (
    <>
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
    </>
  );
}
