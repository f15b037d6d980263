import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { callerOf } from '../../platform/http/caller.js';
import { ifMatched, ifMatchedOptional, setEtag, versionOf } from '../../platform/http/preconditions.js';
import { API_PREFIX } from '../../platform/http/plugins/openapi.js';
import { NoContent, PageOf, PageQuery, ref } from '../../platform/http/schemas.js';
import { BundleBody, ContactIdParams, ContactKeySchema, KeyBundleSchema, KeyShareSchema, MethodIdParams, ShareBody } from './schemas.js';
import type { KeyService } from './service.js';


/** Key material is never worth a cached copy anywhere (RFC 9111 §5.2.2.5). */
const noStore = (reply: FastifyReply) => reply.header('Cache-Control', 'no-store');

/** Keys (PRODUCT §7): device bundles, a contact's bundles, the server share. */
export async function keyRoutes(app: FastifyInstance, opts: { keys: KeyService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { keys } = opts;
  const tags = ['keys'];

  r.get('/keys/devices', {
    config: { auth: 'session' },
    schema: { tags, summary: 'Your devices\' key bundles', description: 'One per passkey that has one, oldest first.', querystring: PageQuery, response: { 200: PageOf(ref(KeyBundleSchema), 'KeyBundlePage') } },
  }, async (request, reply) => {
    noStore(reply);
    return keys.devices.list(callerOf(request), request.query.cursor, request.query.limit ?? 50);
  });

  r.get('/keys/devices/:method_id', {
    config: { auth: 'session', refusals: [['method_not_found', 'no passkey of yours has this id'], ['key_bundle_not_found', 'it has no bundle yet']] },
    schema: { tags, summary: 'One device\'s key bundle', description: 'The opaque key bundle stored for one passkey\'s device with PUT /keys/devices/{method_id}; the server never reads it. Its version is the ETag for If-Match.', params: MethodIdParams, response: { 200: ref(KeyBundleSchema) } },
  }, async (request, reply) => {
    const bundle = await keys.devices.get(callerOf(request), request.params.method_id);
    setEtag(noStore(reply), bundle.version);
    return bundle;
  });

  r.put('/keys/devices/:method_id', {
    config: { ifMatch: 'optional', auth: 'session', refusals: [['invalid_key_bundle', 'not opaque base64url, or longer than 8192 characters'], ['method_not_found', 'no passkey of yours has this id']] },
    schema: {
      tags,
      summary: 'Store a device\'s key bundle',
      description:
        '`method_id` is one of your passkeys. The first PUT creates the bundle (201, no If-Match); later ones replace it and need If-Match ' +
        '(428 without, 412 when stale). The bundle is opaque base64url of at most 8192 characters (else 400 invalid_key_bundle): stored, ' +
        'handed to your active contacts, never read. It goes when its passkey is removed. Your devices get keys.changed, your active ' +
        'subscribers contact.keys.changed; the same bundle again changes nothing.',
      params: MethodIdParams,
      body: BundleBody,
      response: {
        200: ref(KeyBundleSchema),
        201: ref(KeyBundleSchema),
      },
    },
  }, async (request, reply) => {
    const { method_id: methodId } = request.params;
    const { created, bundle } = await ifMatchedOptional(request, versionOf(() => keys.devices.get(callerOf(request), methodId)), (ifMatch) => keys.devices.put(callerOf(request), methodId, ifMatch, request.body.bundle));
    setEtag(noStore(reply), bundle.version);
    if (created) reply.header('Location', `${API_PREFIX}/keys/devices/${encodeURIComponent(methodId)}`);
    return reply.code(created ? 201 : 200).send(bundle);
  });

  r.delete('/keys/devices/:method_id', {
    config: { ifMatch: 'required', auth: 'session', refusals: [['method_not_found', 'no passkey of yours has this id'], ['key_bundle_not_found', 'it has no bundle yet']] },
    schema: {
      tags,
      summary: 'Delete a device\'s key bundle',
      description: 'Needs If-Match. Your devices get keys.changed, your active subscribers contact.keys.changed.',
      params: MethodIdParams,
      response: { 204: NoContent },
    },
  }, async (request, reply) => {
    await ifMatched(request, versionOf(() => keys.devices.get(callerOf(request), request.params.method_id)), (version) => keys.devices.remove(callerOf(request), request.params.method_id, version));
    return reply.code(204).send(null);
  });

  r.get('/contacts/:id/keys', {
    config: { auth: 'session', refusals: ['contact_not_active', ['contact_not_found', 'you have no contact with this id'], ['contact_account_deleted', 'its keys are back if they restore it'], ['contact_account_unavailable', 'the operator locked their account']] },
    schema: {
      tags: ['keys', 'contacts'],
      summary: 'A contact\'s device key bundles',
      description:
        'The bundles of the person you subscribe to, oldest first, while the contact is active (else 403 contact_not_active). Each `id` is ' +
        'opaque and stays while the bundle lives; it is never their passkey\'s id. contact.keys.changed says when to pull again.',
      params: ContactIdParams,
      querystring: PageQuery,
      response: {
        200: PageOf(ref(ContactKeySchema), 'ContactKeyPage'),
      },
    },
  }, async (request, reply) => {
    noStore(reply);
    return keys.contactKeys(callerOf(request), request.params.id, request.query.cursor, request.query.limit ?? 50);
  });

  r.get('/keys/share', {
    config: { auth: 'session', stepUp: true, refusals: [['key_share_not_found', 'no server share is stored']] },
    schema: { tags, summary: 'The server\'s share of your split secret (step-up)', description: 'The share of your split secret that the server holds (PUT /keys/share), after a passkey check (VID-Step-Up); answered with no-store.', response: { 200: ref(KeyShareSchema) } },
  }, async (request, reply) => {
    const share = await keys.share.get(callerOf(request));
    setEtag(noStore(reply), share.version);
    return share;
  });

  r.put('/keys/share', {
    config: { ifMatch: 'optional', auth: 'session', stepUp: true, refusals: [['invalid_key_share', 'not opaque base64url, or longer than 8192 characters']] },
    schema: {
      tags,
      summary: 'Store the server\'s share of your split secret (step-up)',
      description:
        'The first PUT creates it (201, no If-Match); later ones replace it and need If-Match (428 without, 412 when stale). Opaque base64url ' +
        'of at most 8192 characters (else 400 invalid_key_share), never read, never exported. Only your devices are told (keys.changed).',
      body: ShareBody,
      response: {
        200: ref(KeyShareSchema),
        201: ref(KeyShareSchema),
      },
    },
  }, async (request, reply) => {
    const { created, share } = await ifMatchedOptional(request, versionOf(() => keys.share.get(callerOf(request))), (ifMatch) => keys.share.put(callerOf(request), ifMatch, request.body.share));
    setEtag(noStore(reply), share.version);
    if (created) reply.header('Location', `${API_PREFIX}/keys/share`);
    return reply.code(created ? 201 : 200).send(share);
  });

  r.delete('/keys/share', {
    config: { ifMatch: 'required', auth: 'session', stepUp: true, refusals: [['key_share_not_found', 'no server share is stored']] },
    schema: { tags, summary: 'Delete the server\'s share of your split secret (step-up)', description: 'Needs If-Match.', response: { 204: NoContent } },
  }, async (request, reply) => {
    await ifMatched(request, versionOf(() => keys.share.get(callerOf(request))), (version) => keys.share.remove(callerOf(request), version));
    return reply.code(204).send(null);
  });
}
