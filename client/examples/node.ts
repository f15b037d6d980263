/**
 * The client in Node 20: sign up, call the API, list sessions, follow signals, log out.
 *
 *   npm start                                           # in one terminal
 *   npx tsx client/examples/node.ts [base_url] [username]
 *
 * base_url is the server's PUBLIC_ORIGIN: proofs and passkeys are bound to it. Node has no
 * platform authenticator: the software passkey of @vid/client/testing
 * stands in for one, making genuine WebAuthn registrations and assertions.
 */
import { softwareAuthenticator } from '../src/testing/index.js';
import { createVidClient, isProblem } from '../src/index.js';

const origin = new URL(process.argv[2] ?? 'http://localhost:8080').origin;
const username = process.argv[3] ?? `demo${Math.floor(Math.random() * 1e6)}`;
const authenticator = softwareAuthenticator(origin);

const vid = createVidClient({ baseUrl: `${origin}/api/v1` });

console.log('check:', await vid.usernames.check(username));
const { account } = await vid.register({ username, createCredential: authenticator.createCredential });
console.log('signed up as', account.username, '- device key', await vid.jkt());

// Proofs, renewal, retries and If-Match are the client's business from here on.
const me = await vid.me.patch({ display_name: 'Demo' });
console.log('renamed; version', me.version);

for await (const session of vid.sessions.list()) console.log('session', session.id, session.device_label, session.current ? '(this one)' : '');

// Signals for two seconds: the rename above is already in the past, so trigger one more.
const stop = new AbortController();
const following = vid.events.stream({ signal: stop.signal, onSignal: (s) => console.log('signal', s.kind, s.resource) });
setTimeout(() => void vid.me.patch({ display_name: 'Demo again' }), 500);
setTimeout(() => stop.abort(), 2000);
await following;

try {
  await vid.request('DELETE', '/auth/sessions/{id}', { params: { id: 'ses_unknown' } });
} catch (error) {
  if (isProblem(error)) console.log('typed problem:', error.status, error.code, error.requestId);
}

await vid.logout();
console.log('logged out');
