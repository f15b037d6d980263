// The contract walk: every operation of the OpenAPI document the app serves is called once with a
// real request against a real server, on every backend, and each answer is held against the
// document: its status must be documented, a JSON body must match the documented schema for that
// status and content type, and every response header must be declared for that status (apart from
// a few transport and representation headers). A route without an entry in the walk's table
// fails the coverage check, so the table grows with the API.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import sharp from 'sharp';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { PUBLIC_ORIGIN, startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { SoftwareAuthenticator } from '../helpers/authenticator.js';
import { backends } from '../helpers/backends.js';
import { TestClient, uniqueName } from '../helpers/client.js';
import type { CallResult, Device } from '../helpers/client.js';
import type { DpopKey } from '../helpers/dpop.js';
import { RELAXED_JOIN_LIMITS } from '../helpers/join.js';
import { STEP_UP_HEADER, activeTotp, addPasskeyDetailed, downloadRecoveryKey, logInAs, stepUp, totpCode } from '../helpers/step-up.js';

const API = '/api/v1';

/**
 * `VID_RECORD_EXAMPLES=1`: every answer the walk gets (one per operation, of the status it aims
 * for) is written to src/platform/http/openapi-examples.json, which the OpenAPI document shows as
 * that response's example. So the examples are real answers and are recorded again, never edited.
 */
const RECORD_EXAMPLES = process.env.VID_RECORD_EXAMPLES === '1';
const EXAMPLES_FILE = new URL('../../src/platform/http/openapi-examples.json', import.meta.url);
const recorded: Record<string, Record<string, { mediaType: string; value: unknown }>> = {};

/**
 * An example short enough to read: lists keep their first three items, maps keyed by data (more
 * than 20 keys: the catalog's per-country rules) their first three entries, texts 600 characters.
 */
function abridged(value: unknown): unknown {
  if (typeof value === 'string') return value.length > 600 ? `${value.slice(0, 600)}…` : value;
  if (Array.isArray(value)) return value.slice(0, 3).map(abridged);
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    return Object.fromEntries((entries.length > 20 ? entries.slice(0, 3) : entries).map(([key, item]) => [key, abridged(item)]));
  }
  return value;
}

/**
 * Response headers no API declares per operation: how the message is framed and carried
 * (content-type and content-length are the representation the content map already describes;
 * date, connection, keep-alive and transfer-encoding are HTTP/1.1 transport), `vary` (cache
 * keying for content negotiation and CORS), and CORS (`access-control-*`, a cross-cutting policy).
 * Every other header a real answer carries must be declared on that operation's response.
 */
const TRANSPORT_HEADERS = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding', 'vary']);
const isTransportHeader = (name: string) => TRANSPORT_HEADERS.has(name) || name.startsWith('access-control-');

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
/** The spec's three and the current draft's pair (PRODUCT §0), on every answer whatever its status. */
const RATE_LIMIT_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit', 'ratelimit-policy'];

/** How one walk entry calls its operation. */
interface WalkRequest {
  /** The concrete path under /api/v1, query included. */
  path: string;
  /** An authenticated call from this device (access token and DPoP proof). */
  as?: Device;
  /** A DPoP proof with this key and no access token (a new device, before login). */
  key?: DpopKey;
  body?: unknown;
  /** The body as bytes, with its content-type in `headers` (a photo upload). */
  rawBody?: Buffer;
  headers?: Record<string, string>;
  /** A streaming answer (SSE): only the status and headers are read, then the request is aborted. */
  stream?: boolean;
}

interface Answer {
  status: number;
  headers: Headers;
  contentType: string | null;
  body: unknown;
  /** A body was sent (an empty text/vcard is still a body). */
  hasBody: boolean;
}

interface Entry {
  /** `METHOD /template`, exactly as in the document. */
  op: string;
  /** The status the entry aims for. */
  expect: number;
  /** Why the entry aims for a refusal rather than a success (only when expect >= 400). */
  refusal?: string;
  request(w: World): Promise<WalkRequest> | WalkRequest;
  /** Keeps what later entries need from a successful answer. */
  then?(answer: Answer, w: World): void | Promise<void>;
}

/** The small world built through the API before the walk. */
interface World {
  client: TestClient;
  t: TestApp;
  /** Owner: fields, a public "Work" and a "Family" profile, an active TOTP authenticator, three sessions. */
  alice: Device;
  /** Second and third sessions of alice (one is revoked, one renewed and logged out). */
  aliceLaptop: Device;
  aliceTablet: Device;
  aliceMethodId: string;
  totpSecret: string;
  /** Subscriber with an active subscription to alice's Work profile. */
  bob: Device;
  /** Subscriber with a pending subscription (approved, then revoked, by the walk). */
  carol: Device;
  /** Subscriber with a pending subscription (denied with a block, then unblocked, by the walk). */
  dave: Device;
  /** Redeems alice's share link. */
  erin: Device;
  /** Recovers with its recovery key (no authenticator app). */
  rita: Device;
  ritaRecoveryKey: string;
  /** Deleted and undeleted at the end. */
  zed: Device;
  work: string;
  family: string;
  bobSub: string;
  carolSub: string;
  daveSub: string;
  /** What entries hand to later entries. */
  s: Record<string, any>;
}

const ik = () => ({ 'idempotency-key': randomUUID() });

function must(res: CallResult, status: number, what: string): any {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

function need<T>(value: T | undefined | null, what: string): T {
  if (value === undefined || value === null) throw new Error(`needs ${what} from an earlier entry, which did not succeed`);
  return value;
}

/** The current ETag of a resource (its `"<version>"` when the answer has no ETag). */
async function etagOf(w: World, device: Device, path: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await w.client.as(device, 'GET', `${API}${path}`, { headers });
  const body = must(res, 200, `GET ${path} for its ETag`);
  return res.headers.get('etag') ?? `"${body.version}"`;
}

async function buildWorld(t: TestApp, client: TestClient): Promise<World> {
  const signUp = (prefix: string) => client.signUp(uniqueName(prefix));
  const post = (device: Device, path: string, body: unknown) => client.as(device, 'POST', `${API}${path}`, { body, headers: ik() });
  const [alice, bob, carol, dave, erin, rita, zed] = await Promise.all(['wa', 'wb', 'wc', 'wd', 'we', 'wr', 'wz'].map(signUp)) as [Device, Device, Device, Device, Device, Device, Device];

  const fields = [
    { type: 'name', value: { given: 'Alice', family: 'Walker' } },
    { type: 'nickname', value: 'Al' },
    { type: 'phone', value: '+49 30 22732152', label: 'work' },
    { type: 'email', value: 'alice@example.org' },
    { type: 'postal_address', value: { street_lines: ['Platz der Republik 1'], locality: 'Berlin', postal_code: '11011' }, country: 'DE' },
    { type: 'birthday', value: { year: 1990, month: 5, day: 17 } },
    { type: 'url', value: 'https://example.org/alice' },
    { type: 'social', value: { platform: 'bluesky', handle: 'alice.bsky.social' } },
    { type: 'organization', value: { name: 'Acme', unit: 'R&D' } },
    { type: 'job_title', value: 'Engineer' },
    { type: 'pronouns', value: 'she/her' },
    { type: 'language', value: 'en' },
    { type: 'time_zone', value: 'Europe/Berlin' },
    { type: 'note', value: 'Met at the walk.' },
  ];
  const fieldIds: string[] = [];
  for (const field of fields) fieldIds.push(must(await post(alice, '/me/fields', field), 201, `field ${field.type}`).id);
  const work = must(await post(alice, '/profiles', { name: 'Work', public: true }), 201, 'profile Work').id as string;
  const family = must(await post(alice, '/profiles', { name: 'Family' }), 201, 'profile Family').id as string;
  for (const id of fieldIds) must(await client.as(alice, 'PUT', `${API}/profiles/${work}/exposures/${id}`, { body: {} }), 201, 'exposure on Work');
  for (const id of fieldIds.slice(0, 3)) must(await client.as(alice, 'PUT', `${API}/profiles/${family}/exposures/${id}`, { body: {} }), 201, 'exposure on Family');

  const bobSub = must(await post(bob, '/contacts', { username: alice.username, message: 'Hello from Bob' }), 201, 'bob subscribes').id as string;
  must(await post(alice, `/subscriptions/${bobSub}/approve`, { profile_id: work }), 200, 'alice approves bob');
  const carolSub = must(await post(carol, '/contacts', { username: alice.username }), 201, 'carol subscribes').id as string;
  const daveSub = must(await post(dave, '/contacts', { username: alice.username }), 201, 'dave subscribes').id as string;
  must(await post(bob, '/me/fields', { type: 'nickname', value: 'Bobby' }), 201, 'bob field');

  const methods = must(await client.as(alice, 'GET', `${API}/auth/methods`), 200, 'alice methods');
  const aliceMethodId = methods.data[0].id as string;
  const totp = await activeTotp(client, alice, t.clock.now(), 'Phone app');
  t.clock.advance(30_000); // the confirming code's time step is spent
  const aliceLaptop = await logInAs(client, alice);
  const aliceTablet = await logInAs(client, alice);
  const ritaRecoveryKey = await downloadRecoveryKey(client, rita);

  return {
    client,
    t,
    alice,
    aliceLaptop,
    aliceTablet,
    aliceMethodId,
    totpSecret: totp.secret,
    bob,
    carol,
    dave,
    erin,
    rita,
    ritaRecoveryKey,
    zed,
    work,
    family,
    bobSub,
    carolSub,
    daveSub,
    s: {},
  };
}

/**
 * The walk's table: one entry per operation, in the order they run. Reads and creations come
 * first, transitions next, and destructive calls (revoke, unsubscribe, removals, logout, account
 * deletion) last, on their own throwaway sessions, subscriptions or accounts.
 */
const WALK: Entry[] = [
  // Sign-up, login, sessions
  { op: 'POST /auth/username/check', expect: 200, request: () => ({ path: '/auth/username/check', body: { username: uniqueName('free') } }) },
  {
    op: 'POST /auth/register/begin',
    expect: 200,
    request: (w) => {
      w.s.registerName = uniqueName('wn');
      return { path: '/auth/register/begin', body: { username: w.s.registerName } };
    },
    then: (a, w) => void (w.s.register = a.body),
  },
  {
    op: 'POST /auth/register/finish',
    expect: 201,
    async request(w) {
      const begin = need(w.s.register, 'register/begin');
      const credential = await new SoftwareAuthenticator().createCredential(begin.options, PUBLIC_ORIGIN);
      return { path: '/auth/register/finish', key: await w.client.newKey(), body: { ceremony_id: begin.ceremony_id, username: w.s.registerName, credential } };
    },
  },
  { op: 'POST /auth/login/begin', expect: 200, request: () => ({ path: '/auth/login/begin' }), then: (a, w) => void (w.s.login = a.body) },
  {
    op: 'POST /auth/login/finish',
    expect: 200,
    async request(w) {
      const begin = need(w.s.login, 'login/begin');
      const credential = await w.alice.authenticator.getAssertion(begin.options, PUBLIC_ORIGIN);
      return { path: '/auth/login/finish', key: await w.client.newKey(), body: { ceremony_id: begin.ceremony_id, credential } };
    },
  },
  { op: 'POST /auth/step-up/begin', expect: 200, request: (w) => ({ path: '/auth/step-up/begin', as: w.alice }) },
  {
    op: 'POST /auth/token/renew',
    expect: 200,
    request: (w) => ({ path: '/auth/token/renew', key: w.aliceTablet.key, body: { refresh_token: w.aliceTablet.tokens.refresh_token } }),
    then: (a, w) => void (w.aliceTablet.tokens = a.body as Device['tokens']),
  },
  { op: 'GET /auth/sessions', expect: 200, request: (w) => ({ path: '/auth/sessions', as: w.alice }) },
  { op: 'GET /auth/security-log', expect: 200, request: (w) => ({ path: '/auth/security-log?limit=20', as: w.alice }) },

  // Methods: passkeys, TOTP, recovery key
  { op: 'GET /auth/methods', expect: 200, request: (w) => ({ path: '/auth/methods', as: w.alice }) },
  {
    op: 'PATCH /auth/methods/{id}',
    expect: 200,
    async request(w) {
      const methods = must(await w.client.as(w.alice, 'GET', `${API}/auth/methods`), 200, 'methods');
      const method = methods.data.find((m: any) => m.id === w.aliceMethodId);
      return { path: `/auth/methods/${w.aliceMethodId}`, as: w.alice, body: { name: 'Walk laptop' }, headers: { 'if-match': `"${method.version}"` } };
    },
  },
  { op: 'POST /auth/methods/passkeys/begin', expect: 200, request: (w) => ({ path: '/auth/methods/passkeys/begin', as: w.alice }), then: (a, w) => void (w.s.passkey = a.body) },
  {
    op: 'POST /auth/methods/passkeys/finish',
    expect: 201,
    async request(w) {
      const begin = need(w.s.passkey, 'methods/passkeys/begin');
      const credential = await new SoftwareAuthenticator().createCredential(begin.options, PUBLIC_ORIGIN);
      return { path: '/auth/methods/passkeys/finish', as: w.alice, body: { ceremony_id: begin.ceremony_id, credential } };
    },
    then: (a, w) => void (w.s.spareMethodId = (a.body as any).id),
  },
  { op: 'POST /auth/totp', expect: 201, request: (w) => ({ path: '/auth/totp', as: w.alice, body: { name: 'Walk app' } }), then: (a, w) => void (w.s.totp = a.body) },
  {
    op: 'POST /auth/totp/{id}/confirm',
    expect: 200,
    request(w) {
      const totp = need(w.s.totp, 'POST /auth/totp');
      w.t.clock.advance(30_000);
      return { path: `/auth/totp/${totp.id}/confirm`, as: w.alice, body: { code: totpCode(totp.secret, w.t.clock.now()) } };
    },
  },
  { op: 'GET /auth/totp', expect: 200, request: (w) => ({ path: '/auth/totp', as: w.alice }) },
  { op: 'GET /auth/recovery-key', expect: 200, request: (w) => ({ path: '/auth/recovery-key', as: w.alice }) },
  { op: 'GET /auth/recovery-key/state', expect: 200, request: (w) => ({ path: '/auth/recovery-key/state', as: w.alice }) },

  // Identity and fields
  { op: 'GET /me', expect: 200, request: (w) => ({ path: '/me', as: w.alice }) },
  {
    op: 'PATCH /me',
    expect: 200,
    request: async (w) => ({ path: '/me', as: w.alice, body: { display_name: 'Alice Walker', default_country: 'DE' }, headers: { 'if-match': await etagOf(w, w.alice, '/me') } }),
  },
  { op: 'GET /field-types', expect: 200, request: () => ({ path: '/field-types' }) },
  { op: 'GET /field-types/{key}', expect: 200, request: () => ({ path: '/field-types/phone' }) },
  { op: 'POST /field-types/{key}/validate', expect: 200, request: () => ({ path: '/field-types/phone/validate', body: { value: '030 22732152', country: 'DE' } }) },
  {
    op: 'POST /me/photos',
    expect: 201,
    request: async (w) => ({ path: '/me/photos', as: w.alice, rawBody: await sharp({ create: { width: 80, height: 80, channels: 3, background: '#4a8' } }).jpeg().toBuffer(), headers: { 'content-type': 'image/jpeg' } }),
    then: (a, w) => void (w.s.photo = a.body),
  },
  { op: 'GET /me/photos', expect: 200, request: (w) => ({ path: '/me/photos', as: w.alice }) },
  { op: 'GET /me/photos/{id}', expect: 200, request: (w) => ({ path: `/me/photos/${need(w.s.photo, 'POST /me/photos').id}`, as: w.alice }) },
  { op: 'GET /photos/{id}', expect: 200, request: (w) => ({ path: `/photos/${need(w.s.photo, 'POST /me/photos').id}?size=64`, as: w.alice }) },
  { op: 'DELETE /me/photos/{id}', expect: 204, request: (w) => ({ path: `/me/photos/${need(w.s.photo, 'POST /me/photos').id}`, as: w.alice }) },
  { op: 'GET /me/fields', expect: 200, request: (w) => ({ path: '/me/fields', as: w.alice }) },
  { op: 'POST /me/fields', expect: 201, request: (w) => ({ path: '/me/fields', as: w.alice, body: { type: 'email', label: 'spare', value: 'spare@example.org' } }), then: (a, w) => void (w.s.field = a.body) },
  { op: 'GET /me/fields/{id}', expect: 200, request: (w) => ({ path: `/me/fields/${need(w.s.field, 'POST /me/fields').id}`, as: w.alice }) },
  {
    op: 'PATCH /me/fields/{id}',
    expect: 200,
    async request(w) {
      const path = `/me/fields/${need(w.s.field, 'POST /me/fields').id}`;
      return { path, as: w.alice, body: { label: 'old' }, headers: { 'if-match': await etagOf(w, w.alice, path) } };
    },
  },

  // Profiles, exposures, preview, public
  { op: 'GET /profiles', expect: 200, request: (w) => ({ path: '/profiles', as: w.alice }) },
  { op: 'POST /profiles', expect: 201, request: (w) => ({ path: '/profiles', as: w.alice, body: { name: 'Walk temp', description: 'For a moment' } }), then: (a, w) => void (w.s.profile = a.body) },
  { op: 'GET /profiles/{id}', expect: 200, request: (w) => ({ path: `/profiles/${w.work}`, as: w.alice }) },
  {
    op: 'PATCH /profiles/{id}',
    expect: 200,
    async request(w) {
      const path = `/profiles/${need(w.s.profile, 'POST /profiles').id}`;
      return { path, as: w.alice, body: { description: 'Still for a moment' }, headers: { 'if-match': await etagOf(w, w.alice, path) } };
    },
  },
  { op: 'GET /profiles/{id}/exposures', expect: 200, request: (w) => ({ path: `/profiles/${w.work}/exposures`, as: w.alice }) },
  {
    op: 'PUT /profiles/{id}/exposures/{field_id}',
    expect: 201,
    request: (w) => ({ path: `/profiles/${need(w.s.profile, 'POST /profiles').id}/exposures/${need(w.s.field, 'POST /me/fields').id}`, as: w.alice, body: { label: 'mail', position: 0 } }),
  },
  // The same call again: the exposure exists, so it is changed (200), not created.
  {
    op: 'PUT /profiles/{id}/exposures/{field_id}',
    expect: 200,
    request: (w) => ({ path: `/profiles/${need(w.s.profile, 'POST /profiles').id}/exposures/${need(w.s.field, 'POST /me/fields').id}`, as: w.alice, body: { label: 'email', position: 0 } }),
  },
  {
    op: 'DELETE /profiles/{id}/exposures/{field_id}',
    expect: 204,
    request: (w) => ({ path: `/profiles/${need(w.s.profile, 'POST /profiles').id}/exposures/${need(w.s.field, 'POST /me/fields').id}`, as: w.alice }),
  },
  { op: 'GET /profiles/{id}/preview', expect: 200, request: (w) => ({ path: `/profiles/${w.work}/preview`, as: w.alice }) },
  {
    op: 'DELETE /profiles/{id}',
    expect: 204,
    async request(w) {
      const path = `/profiles/${need(w.s.profile, 'POST /profiles').id}`;
      return { path, as: w.alice, headers: { 'if-match': await etagOf(w, w.alice, path) } };
    },
  },
  {
    op: 'DELETE /me/fields/{id}',
    expect: 204,
    async request(w) {
      const path = `/me/fields/${need(w.s.field, 'POST /me/fields').id}`;
      return { path, as: w.alice, headers: { 'if-match': await etagOf(w, w.alice, path) } };
    },
  },
  { op: 'GET /public/{username}', expect: 200, request: (w) => ({ path: `/public/${w.alice.username}` }) },
  { op: 'GET /public/{username}/vcard', expect: 200, request: (w) => ({ path: `/public/${w.alice.username}/vcard` }) },

  // Subscriptions (owner side) and blocks
  { op: 'GET /subscriptions', expect: 200, request: (w) => ({ path: '/subscriptions', as: w.alice }) },
  { op: 'GET /subscriptions/{id}', expect: 200, request: (w) => ({ path: `/subscriptions/${w.bobSub}`, as: w.alice }) },
  { op: 'POST /subscriptions/{id}/approve', expect: 200, request: (w) => ({ path: `/subscriptions/${w.carolSub}/approve`, as: w.alice, body: { profile_id: w.family } }) },
  { op: 'POST /subscriptions/{id}/deny', expect: 200, request: (w) => ({ path: `/subscriptions/${w.daveSub}/deny`, as: w.alice, body: { block: true } }) },
  { op: 'POST /subscriptions/{id}/move', expect: 200, request: (w) => ({ path: `/subscriptions/${w.bobSub}/move`, as: w.alice, body: { profile_id: w.family } }) },
  { op: 'GET /blocks', expect: 200, request: (w) => ({ path: '/blocks', as: w.alice }) },
  { op: 'DELETE /blocks/{username}', expect: 204, request: (w) => ({ path: `/blocks/${w.dave.username}`, as: w.alice }) },

  // My contacts (subscriber side) and annotations
  { op: 'POST /contacts', expect: 201, request: (w) => ({ path: '/contacts', as: w.bob, body: { username: w.carol.username, message: 'Hi Carol' } }), then: (a, w) => void (w.s.contact = a.body) },
  { op: 'GET /contacts', expect: 200, request: (w) => ({ path: '/contacts', as: w.bob }) },
  { op: 'GET /contacts/vcard', expect: 200, request: (w) => ({ path: '/contacts/vcard', as: w.bob }) },
  { op: 'GET /contacts/{id}', expect: 200, request: (w) => ({ path: `/contacts/${w.bobSub}`, as: w.bob }) },
  { op: 'GET /contacts/{id}/card', expect: 200, request: (w) => ({ path: `/contacts/${w.bobSub}/card`, as: w.bob }) },
  { op: 'GET /contacts/{id}/vcard', expect: 200, request: (w) => ({ path: `/contacts/${w.bobSub}/vcard`, as: w.bob }) },
  {
    op: 'PUT /contacts/{id}/annotation',
    expect: 201,
    request: (w) => ({ path: `/contacts/${w.bobSub}/annotation`, as: w.bob, body: { note: 'Met at the walk', labels: ['friends', 'work'] } }),
  },
  {
    op: 'PUT /contacts/{id}/annotation',
    expect: 200,
    request: async (w) => ({ path: `/contacts/${w.bobSub}/annotation`, as: w.bob, body: { note: 'Met at the walk in May', labels: ['friends', 'work'] }, headers: { 'if-match': await etagOf(w, w.bob, `/contacts/${w.bobSub}/annotation`) } }),
  },
  { op: 'GET /contacts/{id}/annotation', expect: 200, request: (w) => ({ path: `/contacts/${w.bobSub}/annotation`, as: w.bob }) },
  { op: 'GET /labels', expect: 200, request: (w) => ({ path: '/labels', as: w.bob }) },
  {
    op: 'DELETE /contacts/{id}/annotation',
    expect: 204,
    request: async (w) => ({ path: `/contacts/${w.bobSub}/annotation`, as: w.bob, headers: { 'if-match': await etagOf(w, w.bob, `/contacts/${w.bobSub}/annotation`) } }),
  },

  // Sharing
  {
    op: 'POST /share-links',
    expect: 201,
    request: (w) => ({ path: '/share-links', as: w.alice, body: { profile_id: w.work, auto_approve: true, max_uses: 5, expires_at: new Date(w.t.clock.now() + 86_400_000).toISOString() } }),
    then: (a, w) => void (w.s.link = a.body),
  },
  { op: 'GET /share-links', expect: 200, request: (w) => ({ path: '/share-links', as: w.alice }) },
  { op: 'GET /share-links/resolve', expect: 200, request: (w) => ({ path: `/share-links/resolve?token=${encodeURIComponent(need(w.s.link, 'POST /share-links').token)}` }) },
  { op: 'POST /share-links/redeem', expect: 201, request: (w) => ({ path: '/share-links/redeem', as: w.erin, body: { token: need(w.s.link, 'POST /share-links').token } }) },
  { op: 'DELETE /share-links/{id}', expect: 204, request: (w) => ({ path: `/share-links/${need(w.s.link, 'POST /share-links').id}`, as: w.alice }) },

  // Address-book passwords
  { op: 'POST /dav-tokens', expect: 201, request: (w) => ({ path: '/dav-tokens', as: w.alice, body: { label: 'Walk phone' } }), then: (a, w) => void (w.s.davToken = a.body) },
  { op: 'GET /dav-tokens', expect: 200, request: (w) => ({ path: '/dav-tokens', as: w.alice }) },
  { op: 'DELETE /dav-tokens/{id}', expect: 204, request: (w) => ({ path: `/dav-tokens/${need(w.s.davToken, 'POST /dav-tokens').id}`, as: w.alice }) },
  { op: 'DELETE /dav-tokens', expect: 204, request: (w) => ({ path: '/dav-tokens', as: w.alice }) },

  // Setup links: one used as a profile and withdrawn after, one used by the phone's page
  { op: 'POST /dav-setup-links', expect: 201, request: (w) => ({ path: '/dav-setup-links', as: w.alice, body: { label: 'Walk iPhone' } }), then: (a, w) => void (w.s.setupLink = a.body) },
  { op: 'GET /dav-setup-links/{id}', expect: 200, request: (w) => ({ path: `/dav-setup-links/${need(w.s.setupLink, 'POST /dav-setup-links').id}`, as: w.alice }) },
  { op: 'POST /dav-setup-links/profile', expect: 200, request: (w) => ({ path: '/dav-setup-links/profile', body: { token: new URL(need(w.s.setupLink, 'POST /dav-setup-links').url).hash.slice(1) } }) },
  { op: 'DELETE /dav-setup-links/{id}', expect: 204, request: (w) => ({ path: `/dav-setup-links/${need(w.s.setupLink, 'POST /dav-setup-links').id}`, as: w.alice }) },
  { op: 'POST /dav-setup-links', expect: 201, request: (w) => ({ path: '/dav-setup-links', as: w.alice, body: {} }), then: (a, w) => void (w.s.phoneLink = a.body) },
  { op: 'POST /dav-setup-links/redeem', expect: 201, request: (w) => ({ path: '/dav-setup-links/redeem', body: { code: need(w.s.phoneLink, 'POST /dav-setup-links').code } }) },

  // Keys
  { op: 'PUT /keys/devices/{method_id}', expect: 201, request: (w) => ({ path: `/keys/devices/${w.aliceMethodId}`, as: w.alice, body: { bundle: Buffer.from('walk device bundle').toString('base64url') } }) },
  {
    op: 'PUT /keys/devices/{method_id}',
    expect: 200,
    request: async (w) => ({ path: `/keys/devices/${w.aliceMethodId}`, as: w.alice, body: { bundle: Buffer.from('walk device bundle, again').toString('base64url') }, headers: { 'if-match': await etagOf(w, w.alice, `/keys/devices/${w.aliceMethodId}`) } }),
  },
  { op: 'GET /keys/devices', expect: 200, request: (w) => ({ path: '/keys/devices', as: w.alice }) },
  { op: 'GET /keys/devices/{method_id}', expect: 200, request: (w) => ({ path: `/keys/devices/${w.aliceMethodId}`, as: w.alice }) },
  { op: 'GET /contacts/{id}/keys', expect: 200, request: (w) => ({ path: `/contacts/${w.bobSub}/keys`, as: w.bob }) },
  { op: 'PUT /keys/share', expect: 201, request: (w) => ({ path: '/keys/share', as: w.alice, body: { share: Buffer.from('walk server share').toString('base64url') } }), then: (a, w) => void (w.s.share = a.body) },
  {
    op: 'PUT /keys/share',
    expect: 200,
    request: (w) => ({ path: '/keys/share', as: w.alice, body: { share: Buffer.from('walk server share, again').toString('base64url') }, headers: { 'if-match': `"${need(w.s.share, 'PUT /keys/share').version}"` } }),
    then: (a, w) => void (w.s.share = a.body),
  },
  { op: 'GET /keys/share', expect: 200, request: (w) => ({ path: '/keys/share', as: w.alice }) },
  { op: 'DELETE /keys/share', expect: 204, request: (w) => ({ path: '/keys/share', as: w.alice, headers: { 'if-match': `"${need(w.s.share, 'PUT /keys/share').version}"` } }) },
  {
    op: 'DELETE /keys/devices/{method_id}',
    expect: 204,
    request: async (w) => ({ path: `/keys/devices/${w.aliceMethodId}`, as: w.alice, headers: { 'if-match': await etagOf(w, w.alice, `/keys/devices/${w.aliceMethodId}`) } }),
  },

  // Events
  { op: 'GET /events', expect: 200, request: (w) => ({ path: '/events?limit=20', as: w.alice }) },
  { op: 'GET /events/stream', expect: 200, request: (w) => ({ path: '/events/stream', as: w.alice, headers: { accept: 'text/event-stream' }, stream: true }) },

  // Join: the trusted-device path, a denial, and the factor path
  { op: 'POST /auth/join/issue', expect: 200, request: (w) => ({ path: '/auth/join/issue', as: w.alice }), then: (a, w) => void (w.s.joinCode = (a.body as any).code) },
  { op: 'GET /auth/join/code', expect: 200, request: (w) => ({ path: '/auth/join/code', as: w.alice }) },
  {
    op: 'POST /auth/join/redeem',
    expect: 201,
    async request(w) {
      w.s.joinKey = await w.client.newKey();
      return { path: '/auth/join/redeem', key: w.s.joinKey, body: { username: w.alice.username, code: need(w.s.joinCode, 'join/issue') } };
    },
    then: (a, w) => void (w.s.joinAttempt = (a.body as any).attempt_id),
  },
  { op: 'GET /auth/join/attempts/{id}', expect: 200, request: (w) => ({ path: `/auth/join/attempts/${need(w.s.joinAttempt, 'join/redeem')}`, key: w.s.joinKey }) },
  { op: 'GET /auth/join/pending', expect: 200, request: (w) => ({ path: '/auth/join/pending', as: w.alice }) },
  { op: 'POST /auth/join/approve', expect: 200, request: (w) => ({ path: '/auth/join/approve', as: w.alice, body: { attempt_id: need(w.s.joinAttempt, 'join/redeem') } }) },
  {
    op: 'POST /auth/join/deny',
    expect: 200,
    async request(w) {
      const code = must(await w.client.as(w.alice, 'POST', `${API}/auth/join/issue`, { headers: { 'idempotency-key': randomUUID() } }), 200, 'join/issue').code;
      const redeemed = must(await w.client.call('POST', `${API}/auth/join/redeem`, { body: { username: w.alice.username, code }, key: await w.client.newKey(), headers: { 'idempotency-key': randomUUID() } }), 201, 'join/redeem');
      return { path: '/auth/join/deny', as: w.alice, body: { attempt_id: redeemed.attempt_id } };
    },
  },
  {
    op: 'POST /auth/join/start',
    expect: 201,
    async request(w) {
      w.s.factorKey = await w.client.newKey();
      return { path: '/auth/join/start', key: w.s.factorKey, body: { username: w.alice.username } };
    },
    then: (a, w) => void (w.s.factorAttempt = (a.body as any).attempt_id),
  },
  {
    op: 'POST /auth/join/approve-with-factor',
    expect: 200,
    request(w) {
      w.t.clock.advance(30_000);
      return { path: '/auth/join/approve-with-factor', key: w.s.factorKey, body: { attempt_id: need(w.s.factorAttempt, 'join/start'), totp_code: totpCode(w.totpSecret, w.t.clock.now()) } };
    },
  },
  {
    op: 'POST /auth/join/register-options',
    expect: 200,
    request: (w) => ({ path: '/auth/join/register-options', key: w.s.factorKey, body: { attempt_id: need(w.s.factorAttempt, 'join/start') } }),
    then: (a, w) => void (w.s.factorOptions = (a.body as any).options),
  },
  {
    op: 'POST /auth/join/finish',
    expect: 200,
    async request(w) {
      const credential = await new SoftwareAuthenticator().createCredential(need(w.s.factorOptions, 'join/register-options'), PUBLIC_ORIGIN);
      return { path: '/auth/join/finish', key: w.s.factorKey, body: { attempt_id: w.s.factorAttempt, persist_device: true, credential } };
    },
  },

  // Recovery (rita has no authenticator app: the key alone recovers)
  { op: 'POST /auth/recovery/begin', expect: 200, request: (w) => ({ path: '/auth/recovery/begin', body: { username: w.rita.username, recovery_key: w.ritaRecoveryKey } }), then: (a, w) => void (w.s.recovery = a.body) },
  {
    op: 'POST /auth/recovery/finish',
    expect: 200,
    async request(w) {
      const begin = need(w.s.recovery, 'recovery/begin');
      const credential = await new SoftwareAuthenticator().createCredential(begin.options, PUBLIC_ORIGIN);
      return { path: '/auth/recovery/finish', key: await w.client.newKey(), body: { ceremony_id: begin.ceremony_id, credential } };
    },
  },

  // Lifecycle reads
  { op: 'GET /account/export', expect: 200, request: (w) => ({ path: '/account/export', as: w.alice }) },
  { op: 'GET /account/deletion-terms', expect: 200, request: (w) => ({ path: '/account/deletion-terms', as: w.alice }) },

  // Destructive, last: each on its own subscription, contact, authenticator, passkey, session or account
  { op: 'POST /subscriptions/{id}/revoke', expect: 200, request: (w) => ({ path: `/subscriptions/${w.carolSub}/revoke`, as: w.alice, body: {} }) },
  { op: 'DELETE /contacts/{id}', expect: 204, request: (w) => ({ path: `/contacts/${need(w.s.contact, 'POST /contacts').id}`, as: w.bob }) },
  { op: 'DELETE /auth/totp/{id}', expect: 204, request: (w) => ({ path: `/auth/totp/${need(w.s.totp, 'POST /auth/totp').id}`, as: w.alice }) },
  { op: 'DELETE /auth/methods/{id}', expect: 204, request: (w) => ({ path: `/auth/methods/${need(w.s.spareMethodId, 'methods/passkeys/finish')}`, as: w.alice }) },
  { op: 'DELETE /auth/sessions/{id}', expect: 204, request: (w) => ({ path: `/auth/sessions/${w.aliceLaptop.tokens.session_id}`, as: w.alice }) },
  { op: 'POST /auth/logout', expect: 204, request: (w) => ({ path: '/auth/logout', as: w.aliceTablet }) },
  { op: 'DELETE /account', expect: 202, request: (w) => ({ path: '/account', as: w.zed }) },
  { op: 'POST /account/undelete', expect: 200, request: (w) => ({ path: '/account/undelete', as: w.zed }) },
];

// ---------------------------------------------------------------------------------------------
// The document

type Doc = { paths: Record<string, Record<string, any>>; components?: Record<string, Record<string, any>> };

function operationsOf(doc: Doc): string[] {
  const ops: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of Object.keys(item)) if (METHODS.includes(method)) ops.push(`${method.toUpperCase()} ${path}`);
  }
  return ops;
}

function operation(doc: Doc, op: string): any {
  const [method, path] = op.split(' ') as [string, string];
  return doc.paths[path]?.[method.toLowerCase()];
}

/** A JSON pointer inside the document (`#/components/...`). */
function pointer(doc: Doc, ref: string): any {
  if (!ref.startsWith('#/')) throw new Error(`unsupported $ref ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<any>((node, key) => node?.[key], doc);
}

const deref = (doc: Doc, node: any): any => (node && typeof node.$ref === 'string' ? deref(doc, pointer(doc, node.$ref)) : node);

/** The documented response for a status: exact, then its range (`4XX`), then `default`. */
function documentedResponse(doc: Doc, op: any, status: number): { key: string; response: any } | undefined {
  for (const key of [String(status), `${String(status)[0]}XX`, 'default']) {
    if (op.responses?.[key]) return { key, response: deref(doc, op.responses[key]) };
  }
  return undefined;
}

function pathParams(doc: Doc, op: any): Array<{ in: string; name: string; required?: boolean }> {
  return (op.parameters ?? []).map((p: any) => deref(doc, p));
}

/** Ajv over the document: every components.schemas entry under its `#/components/schemas/<name>` reference. */
function schemaValidator(doc: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) ajv.addSchema(schema, `#/components/schemas/${name}`);
  const compiled = new Map<string, ValidateFunction>();
  return {
    validate(key: string, schema: unknown, body: unknown): string | null {
      let validate = compiled.get(key);
      if (!validate) {
        try {
          validate = ajv.compile(structuredClone(schema) as object);
        } catch (error) {
          return `the schema does not compile: ${(error as Error).message}`;
        }
        compiled.set(key, validate);
      }
      return validate(body) ? null : ajv.errorsText(validate.errors, { separator: '; ' });
    },
  };
}

const mediaTypeOf = (contentType: string | null) => (contentType ?? '').split(';')[0]!.trim().toLowerCase();
const isJson = (mediaType: string) => mediaType === 'application/json' || mediaType.endsWith('+json');

// ---------------------------------------------------------------------------------------------
// The walk

async function send(client: TestClient, method: string, request: WalkRequest): Promise<Answer> {
  const path = `${API}${request.path}`;
  if (request.stream) {
    const headers: Record<string, string> = { ...request.headers };
    const key = request.as?.key ?? request.key;
    const token = request.as?.tokens.access_token;
    if (token) headers.authorization = `DPoP ${token}`;
    if (key) headers.dpop = await key.proof(method, PUBLIC_ORIGIN + path.split('?')[0], { accessToken: token });
    const controller = new AbortController();
    const response = await fetch(client.baseUrl + path, { method, headers, signal: controller.signal });
    const contentType = response.headers.get('content-type');
    controller.abort();
    await response.body?.cancel().catch(() => {});
    return { status: response.status, headers: response.headers, contentType, body: null, hasBody: contentType !== null };
  }
  const res = request.as
    ? await client.as(request.as, method, path, { body: request.body, rawBody: request.rawBody, headers: request.headers })
    : await client.call(method, path, { body: request.body, headers: request.headers, key: request.key });
  const contentType = res.headers.get('content-type');
  // Bytes (an image) are checked as the document describes them: a string, contentEncoding binary.
  const body = Buffer.isBuffer(res.body) ? res.body.toString('latin1') : res.body;
  return { status: res.status, headers: res.headers, contentType, body, hasBody: res.body !== null };
}

interface Findings {
  /** Operations without a walk entry, entries naming no operation, entries that could not run or missed their aim. */
  coverage: string[];
  /** Statuses the operation does not document, and 5xx answers. */
  statuses: string[];
  /** Bodies or content types that do not match the document. */
  bodies: string[];
  /** Per operation and status, the header names the answer carried but the document does not declare. */
  headers: string[];
  /** Answers without the spec's RateLimit-* headers (every answer carries them: PRODUCT §0). */
  rateLimits: string[];
  /** Answers to an authenticated request that a browser could reuse after the state changed (PRODUCT §0). */
  cacheControls: string[];
  walked: number;
}

async function walk(doc: Doc, w: World): Promise<Findings> {
  const findings: Findings = { coverage: [], statuses: [], bodies: [], headers: [], rateLimits: [], cacheControls: [], walked: 0 };
  const ops = operationsOf(doc);
  const entries = new Set(WALK.map((e) => e.op));
  for (const op of ops) if (!entries.has(op)) findings.coverage.push(`${op}: no entry in the walk's table`);
  for (const entry of WALK) if (!operation(doc, entry.op)) findings.coverage.push(`${entry.op}: in the walk's table but not in the document`);
  const validator = schemaValidator(doc);
  const undeclared = new Map<string, Set<string>>();

  for (const entry of WALK) {
    const op = operation(doc, entry.op);
    if (!op) continue;
    const [method, template] = entry.op.split(' ') as [string, string];
    let answer: Answer;
    let authenticated = false;
    try {
      const request = await entry.request(w);
      authenticated = request.as !== undefined || Object.keys(request.headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
      const route = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      if (!route.test(request.path.split('?')[0]!)) throw new Error(`the entry calls ${request.path}, not ${template}`);
      // What the document asks of the request: an Idempotency-Key and a step-up where the operation takes them.
      const headers: Record<string, string> = {};
      const params = pathParams(doc, op).filter((p) => p.in === 'header');
      if (params.some((p) => p.name.toLowerCase() === 'idempotency-key')) Object.assign(headers, ik());
      if (params.some((p) => p.name.toLowerCase() === STEP_UP_HEADER) && request.as) headers[STEP_UP_HEADER] = await stepUp(w.client, request.as);
      answer = await send(w.client, method, { ...request, headers: { ...headers, ...request.headers } });
    } catch (error) {
      findings.coverage.push(`${entry.op}: could not be walked: ${(error as Error).message}`);
      continue;
    }
    findings.walked += 1;
    const { status } = answer;
    const summary = `${entry.op} ${status}`;
    if (status !== entry.expect) {
      findings.coverage.push(`${entry.op}: the walk aims for ${entry.expect}${entry.refusal ? ` (${entry.refusal})` : ''}, got ${status} ${JSON.stringify(answer.body).slice(0, 300)}`);
    } else if (status < 400) {
      await entry.then?.(answer, w);
    }
    if (status >= 500) findings.statuses.push(`${summary}: server error ${JSON.stringify(answer.body).slice(0, 300)}`);
    const missing = RATE_LIMIT_HEADERS.filter((name) => !answer.headers.has(name));
    if (missing.length) findings.rateLimits.push(`${summary}: no ${missing.join(', ')}`);
    if (authenticated) {
      const problem = reusableAfterChange(answer.headers.get('cache-control'), status);
      if (problem) findings.cacheControls.push(`${summary}: ${problem}`);
    }

    const documented = documentedResponse(doc, op, status);
    if (!documented) {
      findings.statuses.push(`${summary}: not documented (documented: ${Object.keys(op.responses ?? {}).join(', ')})`);
      continue;
    }

    // Body: the content type must be documented; JSON must match its schema.
    const content: Record<string, any> | undefined = documented.response.content;
    const mediaType = mediaTypeOf(answer.contentType);
    if (answer.hasBody && status !== 204 && status !== 304) {
      if (!content) findings.bodies.push(`${summary}: answered ${mediaType || 'a body without a content type'}, the document describes no content`);
      else if (!content[mediaType]) findings.bodies.push(`${summary}: answered ${mediaType || 'no content type'}, documented: ${Object.keys(content).join(', ')}`);
      else if (isJson(mediaType)) {
        const schema = content[mediaType].schema;
        const error = schema === undefined ? null : validator.validate(`${entry.op} ${documented.key} ${mediaType}`, schema, answer.body);
        if (error) findings.bodies.push(`${summary} ${mediaType}: ${error}\n    ${JSON.stringify(answer.body).slice(0, 400)}`);
      }
    }

    // Bytes (a photo) make no example a reader could use: only text and JSON answers are recorded.
    if (RECORD_EXAMPLES && answer.hasBody && answer.body !== null && content?.[mediaType] && !mediaType.startsWith('image/')) {
      recorded[entry.op] = { ...recorded[entry.op], [documented.key]: { mediaType, value: abridged(answer.body) } };
    }

    // Headers: every header not of the transport must be declared on this response.
    const declared = new Set(Object.keys(documented.response.headers ?? {}).map((name) => name.toLowerCase()));
    for (const name of answer.headers.keys()) {
      const lower = name.toLowerCase();
      if (isTransportHeader(lower) || declared.has(lower)) continue;
      const key = `${entry.op} ${documented.key}`;
      if (!undeclared.has(key)) undeclared.set(key, new Set());
      undeclared.get(key)!.add(lower);
    }
  }
  for (const [key, names] of undeclared) findings.headers.push(`${key}: ${[...names].sort().join(', ')}`);
  if (undeclared.size) {
    // First, each undeclared name with the number of responses that send it: the declarations to add.
    const counts = new Map<string, number>();
    for (const names of undeclared.values()) for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
    const tally = [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([name, count]) => `${name} (${count})`);
    findings.headers.unshift(`in all: ${tally.join(', ')}`);
  }
  return findings;
}

/**
 * Why a browser could reuse this answer to an authenticated request after the state changed, or
 * null: it needs Cache-Control (RFC 9111 §4.2.2 heuristic freshness otherwise), never `public`,
 * and `no-store`, or `no-cache` on a success it revalidates; a refusal is always `no-store`.
 */
function reusableAfterChange(cacheControl: string | null, status: number): string | null {
  if (cacheControl === null) return 'no Cache-Control';
  const directives = cacheControl.toLowerCase().split(',').map((d) => d.trim());
  if (directives.includes('public')) return `Cache-Control: ${cacheControl} (shared caches may keep it)`;
  if (status >= 400) return directives.includes('no-store') ? null : `Cache-Control: ${cacheControl} on a refusal (not no-store)`;
  return directives.includes('no-store') || directives.includes('no-cache') ? null : `Cache-Control: ${cacheControl} (neither no-store nor no-cache)`;
}

function report(title: string, lines: string[]): string {
  return `${title} (${lines.length}):\n  ${lines.join('\n  ')}`;
}

for (const backend of backends) {
  describe(`contract walk: every operation of the OpenAPI document, called for real [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let doc: Doc;
    let findings: Findings;
    before(async () => {
      t = await startTestApp(backend, { ...RELAXED_JOIN_LIMITS, RECOVERY_PER_CLIENT_PER_HOUR: '100000', RECOVERY_KEY_HOLDER_PER_HOUR: '100000' });
      // The walk checks every answer itself and collects what it finds, so its client checks nothing.
      const client = new TestClient(t.baseUrl, PUBLIC_ORIGIN, { check() {} }, t.clock.now);
      const res = await fetch(`${t.baseUrl}${API}/openapi.json`);
      assert.equal(res.status, 200);
      doc = (await res.json()) as Doc;
      findings = await walk(doc, await buildWorld(t, client));
      if (RECORD_EXAMPLES && backend === backends[0]) {
        const sorted = Object.fromEntries(Object.entries(recorded).sort(([a], [b]) => a.localeCompare(b)));
        writeFileSync(EXAMPLES_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
      }
    });
    after(() => t?.close());

    it('has a walk entry for every operation, and every entry reaches the status it aims for', () => {
      const total = operationsOf(doc).length;
      assert.equal(findings.coverage.length, 0, report(`${findings.walked} of ${total} operations walked; coverage problems`, findings.coverage));
    });

    it('answers only documented statuses, and no 5xx', () => {
      assert.equal(findings.statuses.length, 0, report('undocumented statuses and server errors', findings.statuses));
    });

    it('answers bodies that match the documented content type and schema', () => {
      assert.equal(findings.bodies.length, 0, report('bodies not matching the document', findings.bodies));
    });

    it('sends RateLimit-* on every answer, refusals included', () => {
      assert.equal(findings.rateLimits.length, 0, report('answers without RateLimit headers', findings.rateLimits));
    });

    it('sends Cache-Control on every answer to an authenticated request, refusals included, that no browser may reuse after a change', () => {
      assert.equal(findings.cacheControls.length, 0, report('authenticated answers a browser could reuse', findings.cacheControls));
    });

    it('declares every response header it sends (transport and CORS headers aside)', () => {
      assert.equal(findings.headers.length, 0, report('undeclared response headers (names with the number of responses sending them, then per operation and status)', findings.headers));
    });
  });
}
