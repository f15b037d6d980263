import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../../platform/http/caller.js';
import { PageOf, PageQuery, ref } from '../../platform/http/schemas.js';
import { CreationOptions, RegistrationCredential } from '../../platform/http/webauthn-schemas.js';
import { Tokens } from '../sessions/schemas.js';
import type { JoinService } from './service.js';
import { AttemptBody, AttemptId, FactorBody, JoinAttempt, JoinCode, JoinCodeState, PendingJoin, RedeemBody, StartBody } from './schemas.js';
import type { RouteRefusal } from '../../platform/refusals.js';

const NOT_APPROVED = ['JOIN_NOT_APPROVED', 'join_denied', ['join_key_mismatch', 'not the redeeming device']] as const satisfies readonly RouteRefusal[];
/** Cross-device join: a code issued on a trusted device, approved there, finished on the new one. */
export async function joinRoutes(app: FastifyInstance, opts: { join: JoinService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { join } = opts;

  r.post('/auth/join/issue', {
    config: { auth: 'session', idempotency: 'required', refusals: [['ephemeral_session', 'ephemeral sessions cannot issue codes or decide join attempts']] },
    schema: {
      tags: ['join'],
      summary: 'Issue a 6-digit join code (trusted device)',
      description: 'Single use, valid 120 s; issuing again voids this session\'s previous code. Show it to the person, who types it on the new device.',
      response: { 200: JoinCode },
    },
  }, async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return join.issue(callerOf(request));
  });

  r.get('/auth/join/code', {
    config: { auth: 'session', refusals: [['ephemeral_session', 'ephemeral sessions cannot issue codes or decide join attempts'], ['join_code_not_found', 'this session has issued no code']] },
    schema: {
      tags: ['join'],
      summary: 'What became of the code this session issued last (trusted device)',
      description: 'active, used (redeemed: the attempt is in GET /auth/join/pending), expired, or voided: five wrong guesses were made against it, so even its right digits are refused; issue a new one. The signal join.code.changed says when wrong guesses void a code.',
      response: { 200: JoinCodeState },
    },
  }, async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return join.codeState(callerOf(request));
  });

  r.post('/auth/join/redeem', {
    config: { auth: 'proof', rateLimit: 'auth', idempotency: 'required', refusals: ['join_code_invalid'] },
    schema: {
      tags: ['join'],
      summary: 'Redeem a code on the new device (never logs in)',
      description: 'Binds a new attempt to the DPoP key of this proof. Wrong, expired and used codes all answer 422 join_code_invalid; five wrong codes for a username void its live code (GET /auth/join/code shows it to the trusted device). Limited per client address and per DPoP key, never per username.',
      body: RedeemBody,
      response: { 201: ref(JoinAttempt) },
    },
  }, async (request, reply) => {
    const attempt = await join.redeem({ username: request.body.username, code: request.body.code, jkt: request.dpopJkt!, client: await request.client() });
    return reply.code(201).send(attempt);
  });

  r.post('/auth/join/start', {
    config: { auth: 'proof', rateLimit: 'auth', idempotency: 'required', refusals: ['account_not_found'] },
    schema: {
      tags: ['join'],
      summary: 'Start a join with no trusted device (factor path)',
      description: 'Creates an attempt to approve with POST /auth/join/approve-with-factor: a TOTP code when the account has an authenticator app, else the recovery key. Limited per client address and per DPoP key.',
      body: StartBody,
      response: { 201: ref(JoinAttempt) },
    },
  }, async (request, reply) => {
    const attempt = await join.start({ username: request.body.username, jkt: request.dpopJkt!, client: await request.client() });
    return reply.code(201).send(attempt);
  });

  r.get('/auth/join/attempts/:id', {
    config: { auth: 'proof', refusals: [...NOT_APPROVED, 'join_attempt_not_found'] },
    schema: {
      tags: ['join'],
      summary: 'Poll an attempt (the redeeming device)',
      description: 'The new device asks what became of its attempt, with a proof from the key that redeemed the code (else 403 join_key_mismatch). It answers the attempt with its status; once approved, the device finishes with POST /auth/join/finish, and until then it polls a few seconds apart.',
      params: Type.Object({ id: AttemptId }, { additionalProperties: false }),
      response: { 200: ref(JoinAttempt) },
    },
  }, async (request) => join.status(request.params.id, request.dpopJkt!));

  r.get('/auth/join/pending', {
    config: { auth: 'session', refusals: [['ephemeral_session', 'ephemeral sessions cannot issue codes or decide join attempts']] },
    schema: {
      tags: ['join'],
      summary: 'Attempts waiting for your approval (trusted device)',
      description: 'Newest first, a page at a time (limit and cursor).',
      querystring: PageQuery,
      response: {
        200: PageOf(ref(PendingJoin), 'PendingJoinList'),
      },
    },
  }, async (request) => join.pending(callerOf(request), request.query.cursor, request.query.limit ?? 50));

  r.post('/auth/join/approve', {
    config: { auth: 'session', stepUp: true, idempotency: 'required', refusals: ['join_attempt_not_found', 'join_attempt_expired'] },
    schema: {
      tags: ['join'],
      summary: 'Approve an attempt (trusted device, step-up)',
      description: 'A trusted device approves an attempt from GET /auth/join/pending after a passkey check (VID-Step-Up); the new device then finishes the join. Ephemeral sessions cannot approve.',
      body: AttemptBody,
      response: { 200: ref(JoinAttempt) },
    },
  }, async (request) => join.approve(callerOf(request), request.body.attempt_id));

  r.post('/auth/join/deny', {
    config: { auth: 'session', refusals: [['ephemeral_session', 'ephemeral sessions cannot issue codes or decide join attempts'], 'join_attempt_not_found', ['invalid_transition', 'not awaiting approval'], 'join_attempt_expired'] },
    schema: {
      tags: ['join'],
      summary: 'Deny an attempt (trusted device)',
      description: 'A trusted device refuses an attempt from GET /auth/join/pending: the new device\'s next poll answers 403 join_denied. Ephemeral sessions cannot deny.',
      body: AttemptBody,
      response: { 200: ref(JoinAttempt) },
    },
  }, async (request) => join.deny(callerOf(request), request.body.attempt_id));

  r.post('/auth/join/approve-with-factor', {
    config: { auth: 'proof', rateLimit: 'auth', refusals: [['factor_invalid', 'wrong factor'], ['join_key_mismatch', 'not the redeeming device'], 'join_attempt_not_found', ['invalid_transition', 'not awaiting approval'], 'join_attempt_expired'] },
    schema: {
      tags: ['join'],
      summary: 'Approve your own attempt with a factor (no trusted device)',
      description: 'For an attempt from POST /auth/join/start, sent by the device that started it: a TOTP code from the account\'s authenticator app, or its recovery key. Each wrong factor is counted per attempt and per client address and written to the account\'s security log.',
      body: FactorBody,
      response: { 200: ref(JoinAttempt) },
    },
  }, async (request) => join.approveWithFactor({ attemptId: request.body.attempt_id, jkt: request.dpopJkt!, totpCode: request.body.totp_code, recoveryKey: request.body.recovery_key, client: await request.client() }));

  r.post('/auth/join/register-options', {
    config: { auth: 'proof', refusals: [...NOT_APPROVED, 'join_attempt_not_found', 'join_attempt_expired'] },
    schema: {
      tags: ['join'],
      summary: 'Creation options to keep this device (persist_device true)',
      description: 'For an approved attempt whose device is to be kept: the WebAuthn creation options to pass to navigator.credentials.create, whose answer POST /auth/join/finish takes as credential.',
      body: AttemptBody,
      response: { 200: Type.Object({ options: ref(CreationOptions), schema_version: Type.Literal(1) }, { title: 'JoinRegisterOptions', additionalProperties: false }) },
    },
  }, async (request) => join.registerOptions(request.body.attempt_id, request.dpopJkt!));

  r.post('/auth/join/finish', {
    config: { auth: 'proof', rateLimit: 'auth', idempotencyRequiredWith: 'credential', refusals: [...NOT_APPROVED, 'join_attempt_not_found', 'join_already_finished', 'join_attempt_expired'] },
    schema: {
      tags: ['join'],
      summary: 'Finish the join: a DPoP-bound session for this device',
      description: 'persist_device false (the default): an ephemeral session (12 h cap, no step-up, cannot approve others) and no credential. true: the WebAuthn create ceremony from register-options, exactly one passkey stored, a trusted session.',
      body: Type.Object(
        { attempt_id: AttemptId, persist_device: Type.Optional(Type.Boolean({ default: false })), credential: Type.Optional(ref(RegistrationCredential)) },
        { additionalProperties: false },
      ),
      response: { 200: ref(Tokens) },
    },
  }, async (request, reply) => {
    const tokens = await join.finish({
      attemptId: request.body.attempt_id,
      jkt: request.dpopJkt!,
      persistDevice: request.body.persist_device ?? false,
      credential: request.body.credential as never,
      client: await request.client(),
    });
    reply.header('Cache-Control', 'no-store');
    return tokens;
  });
}
