// Helpers for the join suites (PRODUCT §1 Join; spec: States and transitions): the steps of the
// trusted-device path and the factor path, step-up, TOTP and recovery-key set-up, reads of the
// signal log, and extra server nodes over the suite's database.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Secret, TOTP } from 'otpauth';
import { buildApp } from '../../src/app.js';
import { openPostgres } from '../../src/platform/store/db.js';
import { createStore } from '../../src/platform/store/store.js';
import type { Store } from '../../src/platform/store/store.js';
import { PUBLIC_ORIGIN } from './app.js';
import type { TestApp } from './app.js';
import { SoftwareAuthenticator } from './authenticator.js';
import { TestClient } from './client.js';
import type { CallResult, Device } from './client.js';
import { createContractChecker } from './contract.js';
import { stepUp } from './step-up.js';
import type { DpopKey } from './dpop.js';

export const JOIN = '/api/v1/auth/join';
export const CODE_TTL_MS = 120_000;
export const ATTEMPT_TTL_MS = 10 * 60_000;

/** Limits high enough that suites about something else never meet them. */
export const RELAXED_JOIN_LIMITS: Record<string, string> = {
  JOIN_PER_CLIENT_PER_HOUR: '100000',
  JOIN_PER_KEY_PER_HOUR: '100000',
  JOIN_FACTOR_PER_ATTEMPT: '100000',
  JOIN_FACTOR_PER_CLIENT_PER_HOUR: '100000',
};

/** Fullwidth forms (U+FF01–U+FF5E) of ASCII characters: the same username after PRECIS width mapping. */
export function fullwidth(name: string): string {
  return [...name].map((c) => (/[!-~]/.test(c) ? String.fromCodePoint(c.codePointAt(0)! + 0xfee0) : c)).join('');
}

/** A 6-digit code that is not `code`. */
export function otherCode(code: string, offset = 1): string {
  return String((Number(code) + offset) % 1_000_000).padStart(6, '0');
}

/**
 * The VID-Step-Up header value for one sensitive request of this device (PRODUCT §1 "Step-up"),
 * from the security suites' helper: a fresh challenge from POST /auth/step-up/begin, signed by
 * the device's authenticator.
 */
export { stepUp };

export async function issueCode(client: TestClient, device: Device): Promise<{ code: string; expires_at: string }> {
  const res = await client.as(device, 'POST', `${JOIN}/issue`, { headers: { 'idempotency-key': randomUUID() } });
  assert.equal(res.status, 200, `issue ${res.status}: ${JSON.stringify(res.body)}`);
  assert.match(res.body.code, /^[0-9]{6}$/);
  return res.body;
}

/** POST /auth/join/redeem from a new device (a new DPoP key unless one is given). */
export async function redeem(client: TestClient, username: string, code: string, options: { key?: DpopKey; headers?: Record<string, string> } = {}): Promise<{ res: CallResult; key: DpopKey }> {
  const key = options.key ?? (await client.newKey());
  const res = await client.call('POST', `${JOIN}/redeem`, { body: { username, code }, key, headers: { 'idempotency-key': randomUUID(), ...options.headers } });
  return { res, key };
}

/** A redeem that must succeed: the new device's key and its attempt id. */
export async function redeemOk(client: TestClient, username: string, code: string, options: { key?: DpopKey; headers?: Record<string, string> } = {}): Promise<{ attemptId: string; key: DpopKey }> {
  const { res, key } = await redeem(client, username, code, options);
  assert.equal(res.status, 201, `redeem ${res.status}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.status, 'awaiting_approval');
  return { attemptId: res.body.attempt_id, key };
}

/** POST /auth/join/start: the no-trusted-device path. */
export async function start(client: TestClient, username: string, options: { key?: DpopKey; headers?: Record<string, string> } = {}): Promise<{ res: CallResult; key: DpopKey }> {
  const key = options.key ?? (await client.newKey());
  const res = await client.call('POST', `${JOIN}/start`, { body: { username }, key, headers: { 'idempotency-key': randomUUID(), ...options.headers } });
  return { res, key };
}

/** Issue on the trusted device and redeem on a new one. */
export async function requestJoin(client: TestClient, trusted: Device, options: { key?: DpopKey; headers?: Record<string, string> } = {}): Promise<{ attemptId: string; key: DpopKey; code: string }> {
  const { code } = await issueCode(client, trusted);
  return { ...(await redeemOk(client, trusted.username, code, options)), code };
}

/** POST /auth/join/approve with a fresh step-up and Idempotency-Key (unless told otherwise). */
export async function approve(
  client: TestClient,
  device: Device,
  attemptId: string,
  options: { stepUp?: boolean; idempotencyKey?: string | null } = {},
): Promise<CallResult> {
  const headers: Record<string, string> = {};
  if (options.stepUp !== false) headers['vid-step-up'] = await stepUp(client, device);
  if (options.idempotencyKey !== null) headers['idempotency-key'] = options.idempotencyKey ?? randomUUID();
  return client.as(device, 'POST', `${JOIN}/approve`, { body: { attempt_id: attemptId }, headers });
}

export async function approveOk(client: TestClient, device: Device, attemptId: string): Promise<void> {
  const res = await approve(client, device, attemptId);
  assert.equal(res.status, 200, `approve ${res.status}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.status, 'approved');
}

export function deny(client: TestClient, device: Device, attemptId: string): Promise<CallResult> {
  return client.as(device, 'POST', `${JOIN}/deny`, { body: { attempt_id: attemptId } });
}

/** GET /auth/join/attempts/{id} signed by `key`. */
export function attempt(client: TestClient, key: DpopKey, attemptId: string): Promise<CallResult> {
  return client.call('GET', `${JOIN}/attempts/${encodeURIComponent(attemptId)}`, { key });
}

export async function attemptStatus(client: TestClient, key: DpopKey, attemptId: string): Promise<string> {
  const res = await attempt(client, key, attemptId);
  assert.equal(res.status, 200, `attempts/{id} ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.status;
}

/** POST /auth/join/finish with persist_device false (or left out when `omit` is set). */
export function finishEphemeral(client: TestClient, key: DpopKey, attemptId: string, options: { omit?: boolean } = {}): Promise<CallResult> {
  return client.call('POST', `${JOIN}/finish`, { body: options.omit ? { attempt_id: attemptId } : { attempt_id: attemptId, persist_device: false }, key });
}

export function registerOptions(client: TestClient, key: DpopKey, attemptId: string): Promise<CallResult> {
  return client.call('POST', `${JOIN}/register-options`, { body: { attempt_id: attemptId }, key });
}

/** persist_device true: register-options, the WebAuthn create ceremony on a new authenticator, finish. */
export async function finishPersistent(
  client: TestClient,
  key: DpopKey,
  attemptId: string,
  authenticator = new SoftwareAuthenticator(),
): Promise<{ res: CallResult; authenticator: SoftwareAuthenticator }> {
  const options = await registerOptions(client, key, attemptId);
  assert.equal(options.status, 200, `register-options ${options.status}: ${JSON.stringify(options.body)}`);
  const credential = await authenticator.createCredential(options.body.options, client.publicOrigin);
  const res = await client.call('POST', `${JOIN}/finish`, { body: { attempt_id: attemptId, persist_device: true, credential }, key, headers: { 'idempotency-key': randomUUID() } });
  return { res, authenticator };
}

/** The new device as a Device, from a 200 finish. */
export function joinedDevice(res: CallResult, from: Device, key: DpopKey, authenticator = new SoftwareAuthenticator()): Device {
  assert.equal(res.status, 200, `finish ${res.status}: ${JSON.stringify(res.body)}`);
  return { username: from.username, key, authenticator, tokens: res.body, accountId: from.accountId };
}

/** The whole trusted-device path: issue, redeem, approve, finish. */
export async function joinNewDevice(client: TestClient, trusted: Device, options: { persist: boolean }): Promise<Device> {
  const { attemptId, key } = await requestJoin(client, trusted);
  await approveOk(client, trusted, attemptId);
  if (!options.persist) return joinedDevice(await finishEphemeral(client, key, attemptId), trusted, key);
  const { res, authenticator } = await finishPersistent(client, key, attemptId);
  return joinedDevice(res, trusted, key, authenticator);
}

/** Renews a device's tokens (after the clock jumped past the access token's lifetime). */
export async function renew(client: TestClient, device: Device): Promise<void> {
  const res = await client.call('POST', '/api/v1/auth/token/renew', { body: { refresh_token: device.tokens.refresh_token }, key: device.key });
  assert.equal(res.status, 200, `renew ${res.status}: ${JSON.stringify(res.body)}`);
  device.tokens = res.body;
}

/** The current code of a base32 secret at `at` (ms). */
export function totpCode(secret: string, at: number): string {
  return new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp: at });
}

/** A well-formed code valid for no step in the ±1 window around `at`. */
export function wrongTotp(secret: string, at: number): string {
  const valid = new Set([-30_000, 0, 30_000].map((d) => totpCode(secret, at + d)));
  let n = Number(totpCode(secret, at));
  let code: string;
  do {
    n = (n + 7919) % 1_000_000;
    code = String(n).padStart(6, '0');
  } while (valid.has(code));
  return code;
}

/** POST /auth/join/approve-with-factor from the new device. */
export function approveWithFactor(client: TestClient, key: DpopKey, attemptId: string, factor: { totp_code?: string; recovery_key?: string }, headers: Record<string, string> = {}): Promise<CallResult> {
  return client.call('POST', `${JOIN}/approve-with-factor`, { body: { attempt_id: attemptId, ...factor }, key, headers });
}

/**
 * Enrols and confirms an authenticator app for the device's account; returns its secret. The
 * confirming code's time step is spent, so the clock moves on by one step afterwards.
 */
export async function enrolTotp(t: Pick<TestApp, 'client' | 'clock'>, device: Device): Promise<string> {
  const enrol = await t.client.as(device, 'POST', '/api/v1/auth/totp', {
    body: { name: 'phone' },
    headers: { 'vid-step-up': await stepUp(t.client, device), 'idempotency-key': randomUUID() },
  });
  assert.equal(enrol.status, 201, `totp ${enrol.status}: ${JSON.stringify(enrol.body)}`);
  const confirm = await t.client.as(device, 'POST', `/api/v1/auth/totp/${enrol.body.id}/confirm`, { body: { code: totpCode(enrol.body.secret, t.clock.now()) } });
  assert.equal(confirm.status, 200, `totp confirm ${confirm.status}: ${JSON.stringify(confirm.body)}`);
  t.clock.advance(30_000);
  return enrol.body.secret;
}

/** Downloads the account's recovery key (step-up): the XXXX-XXXX-… line of the text file. */
export async function recoveryKey(client: TestClient, device: Device): Promise<string> {
  const res = await client.as(device, 'GET', '/api/v1/auth/recovery-key', { headers: { 'vid-step-up': await stepUp(client, device) } });
  assert.equal(res.status, 200, `recovery-key ${res.status}: ${JSON.stringify(res.body)}`);
  const line = String(res.body)
    .split('\n')
    .map((l) => l.trim())
    .find((l) => /^[A-Z0-9]{4}(-[A-Z0-9]{4})+$/.test(l));
  assert.ok(line, `no key line in ${JSON.stringify(res.body)}`);
  return line;
}

export interface SignalRow {
  seq: number;
  kind: string;
  resource: string;
}

/** The account's signals after `afterSeq`, oldest first (rows of the events table). */
export async function signals(store: Store, accountId: string, afterSeq = 0): Promise<SignalRow[]> {
  const rows = await store.handle.db
    .selectFrom('events')
    .select(['seq', 'kind', 'resource'])
    .where('account_id', '=', accountId)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .execute();
  return rows.map((r) => ({ seq: Number(r.seq), kind: r.kind, resource: r.resource }));
}

export async function lastSeq(store: Store, accountId: string): Promise<number> {
  const rows = await signals(store, accountId);
  return rows.at(-1)?.seq ?? 0;
}

/** Join signals only, as [kind, resource]. */
export async function joinSignals(store: Store, accountId: string, afterSeq = 0): Promise<string[]> {
  return (await signals(store, accountId, afterSeq)).filter((s) => s.kind.startsWith('join.')).map((s) => `${s.kind} ${s.resource}`);
}

export async function passkeyCount(store: Store, accountId: string): Promise<number> {
  const rows = await store.handle.db.selectFrom('passkeys').select('id').where('account_id', '=', accountId).execute();
  return rows.length;
}

export async function sessionRow(store: Store, sessionId: string) {
  return store.handle.db.selectFrom('sessions').selectAll().where('id', '=', sessionId).executeTakeFirst();
}

export async function attemptRow(store: Store, attemptId: string) {
  return store.handle.db.selectFrom('join_attempts').selectAll().where('id', '=', attemptId).executeTakeFirst();
}

export interface ExtraNode {
  client: TestClient;
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Another server node over the suite's database, sharing its config and clock, on its own port.
 * On PostgreSQL it gets its own store and pool, as a separate process would; on SQLite it shares
 * the suite's store (one file, one writer: a second connection in this process could block the
 * event loop on the file lock while the first waits for it).
 */
export async function startExtraNode(t: TestApp): Promise<ExtraNode> {
  let store = t.store;
  let ownStore: Store | undefined;
  if (t.store.handle.dialect === 'postgres' && t.config.database.kind === 'postgres') {
    ownStore = createStore(openPostgres(t.config.database.url, { schema: t.store.handle.schema, poolSize: 5 }));
    store = ownStore;
  }
  const { app } = await buildApp({ config: t.config, store, clock: t.clock, logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const document = await (await fetch(`${baseUrl}/api/v1/openapi.json`)).json();
  const client = new TestClient(baseUrl, PUBLIC_ORIGIN, createContractChecker(document), t.clock.now);
  return {
    client,
    baseUrl,
    async close() {
      await app.close();
      await ownStore?.close();
    },
  };
}
