// Scenario c, "the peer": oidc-provider's userinfo endpoint (GET /me) answering a DPoP-bound
// access token, with DPoP replay detection on (its default, features.dPoP.allowReplay false),
// set up programmatically: one client, one grant and one access token per device key, bound to
// that key's thumbprint (the jkt the generator's proofs prove), no interactive login. Storage
// is oidc-provider's own in-memory adapter, so the peer pays no database round trip at all.
// Env: PORT, BENCH_JKTS (comma-separated thumbprints). Prints TOKENS <json array> and READY.
import Provider from 'oidc-provider';
import { newKeyPair } from '../../test/helpers/keys.js';

const port = Number(process.env.PORT);
const jkts = (process.env.BENCH_JKTS ?? '').split(',').filter(Boolean);
const issuer = `http://localhost:${port}`;
const signingKey = newKeyPair('ES256').privateJwk;

const provider = new Provider(issuer, {
  clients: [{ client_id: 'bench', client_secret: 'bench-secret-bench-secret-bench-secret', redirect_uris: ['https://client.example/cb'], response_types: ['code'], grant_types: ['authorization_code'], id_token_signed_response_alg: 'ES256' }],
  jwks: { keys: [{ ...signingKey, alg: 'ES256', use: 'sig', kid: 'bench' } as never] },
  cookies: { keys: ['bench-cookie-key-bench-cookie-key'] },
  features: { dPoP: { enabled: true, allowReplay: false }, userinfo: { enabled: true }, devInteractions: { enabled: false } },
  claims: { openid: ['sub'], profile: ['name', 'preferred_username', 'locale'] },
  findAccount: async (_ctx: unknown, sub: string) => ({
    accountId: sub,
    claims: async () => ({ sub, name: 'Bench User', preferred_username: `bench-${sub}`, locale: 'en' }),
  }),
});

const tokens: string[] = [];
const client = await provider.Client.find('bench');
for (const [i, jkt] of jkts.entries()) {
  const accountId = `account-${i}`;
  const grant = new provider.Grant({ accountId, clientId: 'bench' });
  grant.addOIDCScope('openid profile');
  const grantId = await grant.save();
  const token = new provider.AccessToken({ accountId, grantId, client, scope: 'openid profile', gty: 'authorization_code' });
  token.setThumbprint('jkt', jkt);
  tokens.push(await token.save());
}

const server = provider.listen(port, '127.0.0.1' as never);
server.keepAliveTimeout = 60_000;
server.on('listening', () => {
  console.log(`TOKENS ${JSON.stringify(tokens)}`);
  console.log(`READY ${port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
