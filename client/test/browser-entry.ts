// Bundled (vite) for the browser test (test/client/client-browser.test.ts): what a web page does
// with the client and @simplewebauthn/browser, run in Chromium with a virtual authenticator.
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { createVidClient, isProblem, memoryStorage } from '../src/index.js';
import type { Signal } from '../src/index.js';

const createCredential = (optionsJSON: PublicKeyCredentialCreationOptionsJSON) => startRegistration({ optionsJSON });
const getAssertion = (optionsJSON: PublicKeyCredentialRequestOptionsJSON) => startAuthentication({ optionsJSON });

export async function scenario(username: string) {
  const base = `${(globalThis as unknown as { location: { origin: string } }).location.origin}/api/v1`;
  const storage = memoryStorage();
  const vid = createVidClient({ baseUrl: base, storage });
  const check = await vid.usernames.check(username);
  const registered = await vid.register({ username, createCredential });
  const key = (await storage.getKey())!;
  await vid.me.get();

  // The stream over fetch (EventSource could not send the DPoP headers).
  const stop = new AbortController();
  const signals: Signal[] = [];
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const following = vid.events.stream({
    signal: stop.signal,
    mode: 'stream',
    onStateChange: (state) => state === 'streaming' && opened(),
    onSignal: (signal) => {
      signals.push(signal);
    },
  });
  await open;
  const patched = await vid.me.patch({ display_name: 'From the browser' });
  for (let i = 0; i < 200 && signals.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  stop.abort();
  await following;

  // A second client signs in with the passkey the virtual authenticator holds (discoverable).
  const again = createVidClient({ baseUrl: base });
  await again.login({ getAssertion });
  const sessions = await again.sessions.list().toArray();
  const taken = await again
    .register({ username, createCredential })
    .then(() => undefined)
    .catch((error: unknown) => (isProblem(error) ? { problem: true, status: error.status, code: error.code } : { problem: false, message: String(error) }));
  await again.logout();
  return {
    available: check.available,
    username: registered.account.username,
    extractable: (key.privateKey as { extractable: boolean }).extractable,
    version: patched.version,
    signals: signals.map((s) => [s.kind, s.resource]),
    sessions: sessions.length,
    taken,
    signedOut: (await again.session()) === undefined,
  };
}
