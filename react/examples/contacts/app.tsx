// A minimal app on @vid/react: sign up with a passkey, follow someone with their share link, and
// a contact list that updates itself when they change their card. React 18+ as written; Preact
// through preact/compat (alias react and react-dom to it, react/jsx-runtime to preact/jsx-runtime).
import { useState } from 'react';
import type { FormEvent } from 'react';
import { createRoot } from 'react-dom/client';
import { startRegistration } from '@simplewebauthn/browser';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { createVidClient, isProblem } from '@vid/client';
import type { VidClient } from '@vid/client';
import { VidProvider, useAccount, useContacts, useVid } from '@vid/react';

/** Who is signed in (GET /me through the cache). */
function Account() {
  const { data: me } = useAccount();
  return <p>{me ? `Signed in as @${me.username}` : 'Loading…'}</p>;
}

/** Follow someone with the token of the share link they gave you. */
function Follow() {
  const { client } = useVid();
  const [token, setToken] = useState('');
  const [problem, setProblem] = useState<string>();
  const follow = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await client.shareLinks.redeem(token.trim());
      setToken('');
      setProblem(undefined);
    } catch (error) {
      setProblem(isProblem(error) ? error.detail : 'Could not reach the server.');
    }
  };
  return (
    <form onSubmit={follow}>
      <label>
        Share link <input name="token" value={token} onChange={(event) => setToken(event.currentTarget.value)} />
      </label>
      <button type="submit">Follow</button>
      {problem && <p role="alert">{problem}</p>}
    </form>
  );
}

/** The live contact list: five lines of the hook's use. */
function Contacts() {
  const { contacts, settled } = useContacts();
  if (!settled) return <p>Loading contacts…</p>;
  if (!contacts.length) return <p>You follow no one yet.</p>;
  return (
    <ul aria-label="Contacts">
      {contacts.map(({ contact, card }) => (
        <li key={contact.id}>
          {card?.owner.display_name ?? contact.owner.username}: {card?.fields.map((field) => String(field.value)).join(', ')}
        </li>
      ))}
    </ul>
  );
}

/** Sign up with a passkey; then the signed-in app. */
function App({ vid }: { vid: VidClient }) {
  const [signedIn, setSignedIn] = useState(false);
  const [username, setUsername] = useState('');
  if (signedIn) {
    return (
      <VidProvider client={vid}>
        <Account />
        <Follow />
        <Contacts />
      </VidProvider>
    );
  }
  const signUp = async (event: FormEvent) => {
    event.preventDefault();
    await vid.register({ username, createCredential: (optionsJSON: PublicKeyCredentialCreationOptionsJSON) => startRegistration({ optionsJSON }) });
    setSignedIn(true);
  };
  return (
    <form onSubmit={signUp}>
      <label>
        Username <input name="username" value={username} onChange={(event) => setUsername(event.currentTarget.value)} />
      </label>
      <button type="submit">Sign up</button>
    </form>
  );
}

const vid = createVidClient({ baseUrl: `${location.origin}/api/v1` });
createRoot(document.getElementById('app')!).render(<App vid={vid} />);
