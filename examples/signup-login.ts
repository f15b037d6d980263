/**
 * Signs up, calls /me, renews, logs out and logs in again against a running VID server, with the
 * TypeScript client (client/), which makes the DPoP proofs, renews tokens and retries:
 *
 *   npm start                                   # in one terminal
 *   npx tsx examples/signup-login.ts [base_url] [username]
 *
 * base_url is the server's PUBLIC_ORIGIN (http://localhost:8080 by default): proofs and passkeys
 * are bound to it. A browser would create the passkey with navigator.credentials; Node has none,
 * so the software passkey of @vid/client/testing stands in for one.
 */
import { createVidClient, isProblem } from '../client/src/index.js';
import { softwareAuthenticator } from '../client/src/testing/index.js';

const origin = new URL(process.argv[2] ?? 'http://localhost:8080').origin;
const username = process.argv[3] ?? `demo${Math.floor(Math.random() * 1e6)}`;
const authenticator = softwareAuthenticator(origin);
const vid = createVidClient({ baseUrl: `${origin}/api/v1` });

try {
  // 1. Is the name free? (This reserves nothing.)
  console.log('check:', await vid.usernames.check(username));

  // 2. Sign up: creation options, the authenticator's new passkey, and a device key (DPoP, RFC 9449)
  //    that the session is bound to: a stolen token is useless without it.
  const { account, tokens } = await vid.register({ username, createCredential: authenticator.createCredential });
  console.log('signed up as', account.username, '- session', tokens.session_id, '- device key', await vid.jkt());

  // 3. Call the API: every request carries the token and a fresh proof by the device key.
  const me = await vid.me.get();
  console.log('me:', me.username, 'version', me.version);

  // 4. Renew (the client does this by itself before the token expires): the refresh token rotates,
  //    and presenting the old one again would end the session.
  await vid.renew();
  console.log('renewed; session', (await vid.session())?.sessionId);

  // 5. Log out, then a discoverable login, as on a returning visit: the passkey names the account.
  await vid.logout();
  await vid.login({ getAssertion: authenticator.getAssertion });
  const sessions = await vid.sessions.list().toArray();
  console.log('logged in again; sessions:', sessions.length);

  await vid.logout();
  console.log('logged out');
} catch (error) {
  // Refusals are RFC 9457 problems with a stable code.
  if (!isProblem(error)) throw error;
  console.error(`${error.status} ${error.code}: ${error.detail ?? error.title}`);
  process.exitCode = 1;
}
