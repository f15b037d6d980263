import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../../platform/http/caller.js';
import { ifMatched, setEtag, versionOf } from '../../platform/http/preconditions.js';
import { NoContent, PageOf, PageQuery, ref } from '../../platform/http/schemas.js';
import { CeremonyId, CreationOptions, RegistrationCredential } from '../../platform/http/webauthn-schemas.js';
import type { PasskeyService } from './passkeys.js';
import { MethodIdParams, Passkey, RenameBody } from './schemas.js';

/** Passkey management (PRODUCT §1 methods). */
export async function passkeyRoutes(app: FastifyInstance, opts: { passkeys: PasskeyService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const methods = opts.passkeys;

  r.get('/auth/methods', {
    config: { auth: 'session' },
    schema: { tags: ['auth'], summary: 'List your passkeys', description: 'The passkeys of the account, a page at a time (limit and cursor); each carries the version PATCH /auth/methods/{id} takes as If-Match.', querystring: PageQuery, response: { 200: PageOf(ref(Passkey), 'PasskeyPage') } },
  }, async (request) => methods.list(callerOf(request), request.query.cursor, request.query.limit ?? 50));

  r.patch('/auth/methods/:id', {
    config: { ifMatch: 'required', auth: 'session', refusals: [['method_not_found', 'no passkey of yours has this id']] },
    schema: {
      tags: ['auth'],
      summary: 'Rename a passkey',
      description: 'Changes the name a passkey is shown by. Send If-Match with the version last read: 412 version_mismatch when another device changed it meanwhile.',
      params: MethodIdParams,
      body: RenameBody,
      response: {
        200: ref(Passkey),
      },
    },
  }, async (request, reply) => {
    const client = await request.client();
    const passkey = await ifMatched(request, versionOf(() => methods.get(callerOf(request), request.params.id)), (version) => methods.rename(callerOf(request), request.params.id, version, request.body.name, client));
    setEtag(reply, passkey.version);
    return passkey;
  });

  r.post('/auth/methods/passkeys/begin', {
    config: { auth: 'session', stepUp: true, idempotency: 'required' },
    schema: {
      tags: ['auth'],
      summary: 'Begin adding another passkey (step-up)',
      description: 'Creation options excluding your existing passkeys; finish from this same session within 5 minutes.',
      response: { 200: Type.Object({ ceremony_id: Type.String(), options: ref(CreationOptions), schema_version: Type.Literal(1) }, { title: 'AddPasskeyBeginResult', additionalProperties: false }) },
    },
  }, async (request) => methods.addBegin(callerOf(request)));

  r.post('/auth/methods/passkeys/finish', {
    config: { auth: 'session', idempotency: 'required' },
    schema: {
      tags: ['auth'],
      summary: 'Finish adding a passkey',
      description: 'Completes the WebAuthn create ceremony that POST /auth/methods/passkeys/begin started: the new passkey is stored on the account and answered.',
      body: Type.Object({ ceremony_id: CeremonyId, credential: ref(RegistrationCredential) }, { additionalProperties: false }),
      response: { 201: ref(Passkey) },
    },
  }, async (request, reply) => {
    const passkey = await methods.addFinish(callerOf(request), request.body.ceremony_id, request.body.credential as never, await request.client());
    setEtag(reply, passkey.version);
    return reply.code(201).send(passkey);
  });

  r.delete('/auth/methods/:id', {
    config: { auth: 'session', stepUp: true, refusals: [['method_not_found', 'no passkey of yours has this id'], ['last_method', 'the last passkey']] },
    schema: {
      tags: ['auth'],
      summary: 'Remove a passkey (step-up)',
      description: 'The last passkey cannot be removed: 409 last_method.',
      params: MethodIdParams,
      response: { 204: NoContent },
    },
  }, async (request, reply) => {
    await methods.remove(callerOf(request), request.params.id, await request.client());
    return reply.code(204).send(null);
  });
}
