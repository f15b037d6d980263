import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../../platform/http/caller.js';
import { ref } from '../../platform/http/schemas.js';
import { CeremonyId, CreationOptions, RegistrationCredential } from '../../platform/http/webauthn-schemas.js';
import { Tokens } from '../sessions/schemas.js';
import { RecoveryBeginBody, RecoveryKeyState } from './schemas.js';
import type { RecoveryService } from './service.js';

/** The recovery key download and account recovery on a new device (spec: Authentication 6, 7). */
export async function recoveryRoutes(app: FastifyInstance, opts: { recovery: RecoveryService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { recovery } = opts;

  r.get('/auth/recovery-key', {
    config: { auth: 'session', stepUp: true, refusals: ['recovery_key_not_found'] },
    schema: {
      tags: ['auth'],
      summary: 'Download your recovery key (step-up)',
      description: 'A text attachment holding the key made at sign-up. Keep it offline; with it (and a code from your authenticator app, if you have one) you can get back in without any passkey.',
      produces: ['text/plain'],
      response: {
        200: { description: 'The recovery key as a text file', content: { 'text/plain': { schema: Type.String() } } },
      },
    },
  }, async (request, reply) => {
    const { key, filename } = await recovery.download(callerOf(request), await request.client());
    reply.header('Content-Disposition', `attachment; filename="${filename}"`);
    reply.header('Cache-Control', 'no-store');
    reply.type('text/plain; charset=utf-8');
    return `VID recovery key for ${callerOf(request).account.username}\n\n${key}\n\nKeep it somewhere safe and offline. Anyone with this key (and your authenticator app, if you use one) can take over your account.\n`;
  });

  r.get('/auth/recovery-key/state', {
    config: { auth: 'session', refusals: ['recovery_key_not_found'] },
    schema: {
      tags: ['auth'],
      summary: 'When your recovery key was made and last downloaded',
      description:
        'No step-up: dates only, never the key. The key is made once, at sign-up, and a download gives that same key each time (it replaces nothing). The signal recovery_key.changed names this resource after every download.',
      response: { 200: ref(RecoveryKeyState) },
    },
  }, async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return recovery.state(callerOf(request));
  });

  r.post('/auth/recovery/begin', {
    config: { rateLimit: 'auth', refusals: ['recovery_refused'] },
    schema: {
      tags: ['auth'],
      summary: 'Begin recovery on a new device',
      description:
        'With at least one active authenticator app the recovery key AND a current code are needed; without one, the key alone. Every failure gets the same 403 recovery_refused, whatever was wrong. Attempts with a wrong key are limited per client address; attempts with the right key per account (only its holder can make them), so the failures of others never refuse the right key (429 too_many_attempts with Retry-After past either).',
      body: RecoveryBeginBody,
      response: {
        200: Type.Object({ ceremony_id: Type.String(), options: ref(CreationOptions), schema_version: Type.Literal(1) }, { title: 'RecoveryBeginResult', additionalProperties: false }),
      },
    },
  }, async (request) =>
    recovery.begin({
      username: request.body.username,
      recoveryKey: request.body.recovery_key,
      totpCode: request.body.totp_code,
      client: await request.client(),
    }),
  );

  r.post('/auth/recovery/finish', {
    config: { rateLimit: 'auth', auth: 'proof', idempotency: 'required', refusals: ['credential_exists'] },
    schema: {
      tags: ['auth'],
      summary: 'Finish recovery: a new passkey on this device and a trusted session',
      description: 'Completes the recovery begun with POST /auth/recovery/begin: the answer to the WebAuthn create ceremony is stored as a new passkey, and the tokens answered are bound to the DPoP key of this request\'s proof.',
      body: Type.Object({ ceremony_id: CeremonyId, credential: ref(RegistrationCredential) }, { additionalProperties: false }),
      response: { 200: ref(Tokens) },
    },
  }, async (request, reply) => {
    const tokens = await recovery.finish({
      ceremonyId: request.body.ceremony_id,
      credential: request.body.credential as never,
      jkt: request.dpopJkt as string,
      client: await request.client(),
    });
    reply.header('Cache-Control', 'no-store');
    return tokens;
  });
}
