import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ref } from '../../platform/http/schemas.js';
import { Tokens } from '../sessions/schemas.js';
import { LoginBeginResult, LoginFinishBody, RegisterBeginBody, RegisterBeginResult, RegisterFinishBody, Registration } from './schemas.js';
import type { SignInService } from './service.js';

/** Sign-up and discoverable sign-in with passkeys (spec: Authentication 3, 4). */
export async function signInRoutes(app: FastifyInstance, opts: { signIn: SignInService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { signIn } = opts;

  r.post('/auth/register/begin', {
    config: { rateLimit: 'auth', refusals: ['username_reserved', 'username_confusable', 'username_taken'] },
    schema: {
      tags: ['auth'],
      summary: 'Begin sign-up: WebAuthn creation options',
      description: 'Checks the username and returns creation options (resident key and user verification required, 300 s) and a single-use ceremony id.',
      body: RegisterBeginBody,
      response: { 200: RegisterBeginResult },
    },
  }, async (request) => signIn.registerBegin(request.body.username));

  r.post('/auth/register/finish', {
    config: { rateLimit: 'auth', auth: 'proof', refusals: [['username_taken', 'taken meanwhile'], 'credential_exists'] },
    schema: {
      tags: ['auth'],
      summary: 'Finish sign-up: create the account and log in',
      description: 'Verifies the attestation, creates the account, stores the passkey with the DPoP key thumbprint and opens a trusted session bound to that key. When two sign-ups race for one name, exactly one wins; the other gets 409 username_taken.',
      body: RegisterFinishBody,
      response: { 201: Registration },
    },
  }, async (request, reply) => {
    const registration = await signIn.registerFinish({
      ceremonyId: request.body.ceremony_id,
      username: request.body.username,
      credential: request.body.credential as never,
      jkt: request.dpopJkt as string,
      client: await request.client(),
    });
    reply.header('Cache-Control', 'no-store');
    return reply.code(201).send(registration);
  });

  r.post('/auth/login/begin', {
    config: { rateLimit: 'auth' },
    schema: {
      tags: ['auth'],
      summary: 'Begin sign-in: WebAuthn request options',
      description: 'Discoverable login: allowCredentials is empty, user verification required.',
      response: { 200: LoginBeginResult },
    },
  }, async () => signIn.loginBegin());

  r.post('/auth/login/finish', {
    config: { rateLimit: 'auth', auth: 'proof', refusals: [['passkey_in_use', 'a concurrent sign-in with the same passkey won']] },
    schema: {
      tags: ['auth'],
      summary: 'Finish sign-in: tokens bound to a fresh DPoP key',
      description: 'Verifies the WebAuthn assertion for the challenge of POST /auth/login/begin and answers access and refresh tokens bound to the DPoP key of this request\'s proof (RFC 9449 §5).',
      body: LoginFinishBody,
      response: { 200: ref(Tokens) },
    },
  }, async (request, reply) => {
    const tokens = await signIn.loginFinish({
      ceremonyId: request.body.ceremony_id,
      credential: request.body.credential as never,
      jkt: request.dpopJkt as string,
      client: await request.client(),
    });
    reply.header('Cache-Control', 'no-store');
    return tokens;
  });
}
