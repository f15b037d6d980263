/**
 * The client in a browser page: sign up with a passkey, read and rename the identity, follow the
 * event stream. Bundle with any ESM bundler (e.g. vite); @simplewebauthn/browser drives
 * navigator.credentials. A real app passes `storage` backed by IndexedDB so the device key
 * (non-extractable) and the session survive reloads; memory storage is used here for brevity.
 */
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { createVidClient, isProblem } from '../src/index.js';

const vid = createVidClient({
  baseUrl: `${location.origin}/api/v1`,
  onSessionEnded: () => console.log('signed out: show the sign-in screen'),
});

export async function signUp(username: string): Promise<void> {
  const check = await vid.usernames.check(username);
  if (!check.available) throw new Error(`"${username}" is ${check.reason}`);
  try {
    await vid.register({ username, createCredential: (optionsJSON: PublicKeyCredentialCreationOptionsJSON) => startRegistration({ optionsJSON }) });
  } catch (error) {
    if (isProblem(error, 'username_taken')) throw new Error('someone was quicker: pick another name');
    throw error;
  }
}

export async function signIn(): Promise<void> {
  await vid.login({ getAssertion: (optionsJSON: PublicKeyCredentialRequestOptionsJSON) => startAuthentication({ optionsJSON }) });
}

export async function rename(displayName: string): Promise<void> {
  await vid.me.get(); // remembers the version: the patch sends it as If-Match
  await vid.me.patch({ display_name: displayName });
}

/** Live signals over fetch streaming (EventSource cannot send DPoP), polling when streaming fails. */
export function follow(onChange: (resource: string) => void): AbortController {
  const stop = new AbortController();
  void vid.events.stream({
    signal: stop.signal,
    since: localStorage.getItem('vid.cursor') ?? undefined,
    onCursor: (cursor) => localStorage.setItem('vid.cursor', cursor),
    onSignal: (signal) => onChange(signal.resource),
    onResync: () => onChange('/'), // signals were missed: pull everything again
  });
  return stop;
}

// Browser globals, declared so the repository's Node typecheck (no DOM lib) accepts this file.
declare const location: { origin: string };
declare const localStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };
