import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { SoftwareAuthenticator } from '../test/helpers/authenticator.js';
import { sha256Base64url } from '../src/crypto/tokens.js';

const base = process.argv[2] ?? 'http://127.0.0.1:8090';
const origin = 'http://localhost:8090';
const { publicKey, privateKey } = await generateKeyPair('ES256');
const jwk = await exportJWK(publicKey);
const proof = (m: string, u: string, at?: string) => new SignJWT({ htm: m, htu: u, jti: randomUUID(), iat: Math.floor(Date.now() / 1000), ...(at ? { ath: sha256Base64url(at) } : {}) }).setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk }).sign(privateKey);
const auth = new SoftwareAuthenticator();
const username = 'bench' + Date.now();
const begin = await (await fetch(base + '/api/v1/auth/register/begin', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username }) })).json();
const cred = await auth.createCredential(begin.options, origin);
const fin = await (await fetch(base + '/api/v1/auth/register/finish', { method: 'POST', headers: { 'content-type': 'application/json', dpop: await proof('POST', origin + '/api/v1/auth/register/finish') }, body: JSON.stringify({ ceremony_id: begin.ceremony_id, username, credential: cred }) })).json();
const at = fin.tokens.access_token;
const N = 80000;
const proofs: string[] = [];
for (let i = 0; i < N; i++) proofs.push(await proof('GET', origin + '/api/v1/me', at));
let i = 0;
const result = await autocannon({
  url: base + '/api/v1/me', connections: 50, duration: 8,
  requests: [{ method: 'GET', setupRequest: (req: any) => ({ ...req, headers: { authorization: 'DPoP ' + at, dpop: proofs[i++ % N] } }) }],
});
console.log('req/s', result.requests.average, 'p99', result.latency.p99, 'non2xx', result.non2xx, 'errors', result.errors);
