import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../../platform/http/caller.js';
import { ref } from '../../platform/http/schemas.js';
import { RequestOptions } from '../../platform/http/webauthn-schemas.js';
import type { StepUpService } from './service.js';

export async function stepUpRoutes(app: FastifyInstance, opts: { stepUp: StepUpService }) {
  app.withTypeProvider<TypeBoxTypeProvider>().post('/auth/step-up/begin', {
    // Open while the account is deleted: export needs a step-up.
    config: { auth: 'session', openWhileDeleted: true, refusals: ['ephemeral_session'] },
    schema: {
      tags: ['auth'],
      summary: 'Begin a step-up: a challenge for one of your passkeys',
      description:
        'Sign the options with navigator.credentials.get() (user verification required), then send base64url(JSON of the assertion) as the VID-Step-Up header of the sensitive request, within 5 minutes, from this same session. Each assertion works once. Ephemeral sessions cannot step up.',
      response: {
        200: Type.Object({ ceremony_id: Type.String(), options: ref(RequestOptions), schema_version: Type.Literal(1) }, { title: 'StepUpBeginResult', additionalProperties: false }),
      },
    },
  }, async (request) => opts.stepUp.begin(callerOf(request)));
}
