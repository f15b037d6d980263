// The request pipeline every call goes through: DPoP proof per attempt (RFC 9449 §4, §7),
// renewal ahead of expiry and once on a 401 invalid_token, one Idempotency-Key per logical call,
// Retry-After on 429/503, If-Match from the last seen ETag, step-up, typed problem errors.
import type { GetAssertion, HttpMethod, Operation, ResponseBody, Tokens } from './api.js';
import { base64urlJson, createDpopKey, publicJwk, signProof } from './dpop.js';
import type { DpopKeyPair, PublicJwk } from './dpop.js';
import { challengeError, problemFrom, VidNetworkError, VidProblemError } from './errors.js';
import { idempotencyKeyFor, resendableAfterNetworkError } from './idempotency.js';
import { backoffMs, retryAfterMs } from './retry.js';
import type { RetryPolicy, Sleep } from './retry.js';
import type { StoredSession, VidStorage } from './storage.js';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface TransportConfig {
  /** The API base, e.g. https://id.example.com/api/v1 (no trailing slash needed). */
  baseUrl: string;
  storage: VidStorage;
  fetch: FetchLike;
  now: () => number;
  sleep: Sleep;
  retry: RetryPolicy;
  /** Renew this long before the access token expires (at most a quarter of its lifetime). */
  renewBeforeMs: number;
  onSessionEnded?: (reason: VidProblemError | undefined) => void;
}

/** Per-call options of the pipeline (the typed client builds them). */
export interface CallOptions {
  headers?: Record<string, string>;
  /**
   * `auto` (default): the access token and a proof with ath when signed in, nothing otherwise.
   * `proof`: a proof without token (routes that bind or use the device key before login).
   * `none`: no DPoP at all.
   */
  auth?: 'auto' | 'proof' | 'none';
  /** A caller-chosen Idempotency-Key, or false for none. Default: a new UUID for POST and PATCH. */
  idempotencyKey?: string | false;
  /** May the call be resent after a network error? Default: true for GET/PUT/DELETE, false for POST/PATCH. */
  idempotent?: boolean;
  /** If-Match for this call: a version, an ETag, or false for none. Default: the last ETag seen on this path. */
  ifMatch?: number | string | false;
  /** Sensitive operation: answer a step-up challenge (VID-Step-Up) with this authenticator callback. */
  stepUp?: GetAssertion;
  signal?: AbortSignal;
}

export interface SendOptions extends CallOptions {
  method: HttpMethod;
  /** A concrete path below the base URL, e.g. /auth/sessions/ses_123. */
  path: string;
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  /** A body that is not JSON (a photo): its bytes and media type. */
  bytes?: { data: Blob | Uint8Array; type: string };
  /** Sign with this key instead of the stored one (login and sign-up bind a fresh key). */
  key?: DpopKeyPair;
  /** Internal: no proactive renewal (the renew call itself). */
  noRenew?: boolean;
}

export interface VidResponse<T> {
  status: number;
  headers: Headers;
  data: T;
}

/** 409 idempotency_request_in_progress carries Retry-After too: the first attempt is still running. */
const RETRYABLE_STATUSES = new Set([429, 503]);
const SKEW_TOLERANCE_MS = 2_000;

interface LockManagerLike {
  request<T>(name: string, callback: () => Promise<T>): Promise<T>;
}

export class Transport {
  private readonly base: string;
  private readonly jwks = new WeakMap<DpopKeyPair, PublicJwk>();
  /** Last ETag seen per path, sent as If-Match by the next update of that path. */
  readonly versions = new Map<string, string>();
  private nonce: string | undefined;
  /** Server clock minus ours, learnt from Date when a proof is refused (iat window, §11.1). */
  private clockOffsetMs = 0;
  private renewing: Promise<StoredSession> | undefined;

  constructor(readonly config: TransportConfig) {
    this.base = config.baseUrl.replace(/\/+$/, '');
  }

  url(path: string, query?: SendOptions['query']): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined && value !== null) search.set(name, String(value));
    const qs = search.toString();
    return `${this.base}${path}${qs ? `?${qs}` : ''}`;
  }

  async key(create: boolean): Promise<DpopKeyPair | undefined> {
    const existing = await this.config.storage.getKey();
    if (existing || !create) return existing;
    const key = await createDpopKey();
    await this.config.storage.setKey(key);
    return key;
  }

  async jwk(key: DpopKeyPair): Promise<PublicJwk> {
    let jwk = this.jwks.get(key);
    if (!jwk) this.jwks.set(key, (jwk = await publicJwk(key)));
    return jwk;
  }

  /** A new proof for one attempt (§4.2: never reused, so retries get their own). */
  async proof(key: DpopKeyPair, method: string, url: string, accessToken?: string): Promise<string> {
    return signProof(key, await this.jwk(key), { method, url, accessToken, nonce: this.nonce, now: this.config.now() + this.clockOffsetMs });
  }

  /** Stores tokens just issued (and the key they are bound to, when it is new). */
  async adopt(tokens: Tokens, key?: DpopKeyPair): Promise<StoredSession> {
    const now = this.config.now();
    const lifetime = tokens.expires_in * 1000;
    const session: StoredSession = {
      sessionId: tokens.session_id,
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token,
      expiresAt: now + lifetime,
      renewAt: now + lifetime - Math.min(this.config.renewBeforeMs, lifetime / 4),
      refreshExpiresAt: now + tokens.refresh_expires_in * 1000,
      trusted: tokens.trusted,
    };
    if (key) {
      // A new session (sign-up, login): versions seen by an earlier one mean nothing now.
      this.versions.clear();
      await this.config.storage.setKey(key);
    }
    await this.config.storage.setSession(session);
    return session;
  }

  /** Forgets the session locally (after logout, revocation or a failed renewal). */
  async endSession(reason?: VidProblemError): Promise<void> {
    await this.config.storage.setSession(undefined);
    this.versions.clear();
    this.config.onSessionEnded?.(reason);
  }

  /** The session to send, renewed first when it is due (ahead of expiry). */
  private async activeSession(noRenew: boolean | undefined): Promise<StoredSession | undefined> {
    const session = await this.config.storage.getSession();
    if (!session || noRenew || this.config.now() < session.renewAt) return session;
    try {
      return await this.renew(session);
    } catch (error) {
      // Not reachable right now: the current token still works until it expires.
      if (error instanceof VidNetworkError && this.config.now() < session.expiresAt) return session;
      throw error;
    }
  }

  /**
   * Refresh-token rotation (§5, RFC 9700 §4.14.2). One renewal at a time, across tabs too (Web
   * Locks where available): a refresh token presented twice revokes the whole session.
   */
  renew(stale?: StoredSession): Promise<StoredSession> {
    this.renewing ??= this.withRenewLock(() => this.renewNow(stale)).finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  private withRenewLock<T>(task: () => Promise<T>): Promise<T> {
    const locks = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator?.locks;
    return locks ? locks.request(`vid-renew ${this.base}`, task) : task();
  }

  private async renewNow(stale: StoredSession | undefined): Promise<StoredSession> {
    const current = await this.config.storage.getSession();
    const key = await this.config.storage.getKey();
    if (!current || !key) throw new VidProblemError(notSignedIn(), new Headers());
    // Someone else (another call, another tab) renewed meanwhile: use theirs, never spend a token twice.
    if (stale && current.refreshToken !== stale.refreshToken) return current;
    try {
      const { data } = await this.send<Tokens>({
        method: 'POST',
        path: '/auth/token/renew',
        auth: 'proof',
        key,
        body: { refresh_token: current.refreshToken },
        idempotencyKey: false,
        idempotent: false, // the server may have rotated already: resending the old token would revoke
        noRenew: true,
      });
      return await this.adopt(data);
    } catch (error) {
      if (error instanceof VidProblemError && (error.status === 401 || error.status === 403)) await this.endSession(error);
      throw error;
    }
  }

  async send<T>(options: SendOptions): Promise<VidResponse<T>> {
    const response = await this.exchange(options);
    const text = response.status === 204 || response.status === 304 ? '' : await response.text();
    const type = response.headers.get('content-type') ?? '';
    const data = (text === '' ? undefined : /[/+]json\b/.test(type) ? JSON.parse(text) : text) as T;
    return { status: response.status, headers: response.headers, data };
  }

  /** One logical call, with its retries; answers the first 2xx Response unread. */
  async exchange(options: SendOptions): Promise<Response> {
    const { method, signal } = options;
    const auth = options.auth ?? 'auto';
    const url = this.url(options.path, options.query);
    const idempotencyKey = idempotencyKeyFor(method, options.idempotencyKey);
    const resendable = resendableAfterNetworkError(method, options.idempotent);
    const { retry } = this.config;
    let stepUp = options.stepUp ? await this.stepUpHeader(options.stepUp, signal) : undefined;
    let retries = 0;
    const once = { renewed: false, nonce: false, skew: false, stepUp: false };

    for (;;) {
      signal?.throwIfAborted();
      const headers = new Headers(options.headers);
      if (options.body !== undefined) headers.set('content-type', 'application/json');
      if (options.bytes) headers.set('content-type', options.bytes.type);
      let session: StoredSession | undefined;
      if (auth !== 'none') {
        session = auth === 'auto' ? await this.activeSession(options.noRenew) : undefined;
        const key = options.key ?? (await this.key(auth === 'proof'));
        if (session && key) headers.set('authorization', `DPoP ${session.accessToken}`);
        else session = undefined;
        if (key && (session || auth === 'proof')) headers.set('dpop', await this.proof(key, method, url, session?.accessToken));
      }
      if (idempotencyKey) headers.set('idempotency-key', idempotencyKey);
      const ifMatch = this.ifMatchFor(method, options);
      if (ifMatch) headers.set('if-match', ifMatch);
      if (stepUp) headers.set('vid-step-up', stepUp);

      let response: Response;
      try {
        response = await this.config.fetch(url, {
          method,
          headers,
          body: options.bytes ? (options.bytes.data as BodyInit) : options.body === undefined ? undefined : JSON.stringify(options.body),
          signal,
        });
      } catch (error) {
        if (signal?.aborted) throw signal.reason ?? error;
        if (resendable && retries < retry.maxRetries) {
          await this.config.sleep(backoffMs(retries++, retry), signal);
          continue;
        }
        throw new VidNetworkError(`${method} ${options.path}: ${(error as Error)?.message ?? String(error)}`, { cause: error });
      }
      const nonce = response.headers.get('dpop-nonce');
      if (nonce) this.nonce = nonce;
      // RFC 9110 §15.4.5: 304 answers a conditional GET the caller made (If-None-Match): its copy is current.
      if (response.ok || (response.status === 304 && headers.has('if-none-match'))) {
        if (response.ok) this.remember(method, options.path, response.headers);
        return response;
      }

      const problem = await problemFrom(response);
      const challenge = challengeError(response.headers);
      // §8, §9: the server asks for a nonce; it came with this answer, the next proof carries it.
      if (challenge === 'use_dpop_nonce' && nonce && !once.nonce && headers.has('dpop')) {
        once.nonce = true;
        continue;
      }
      // §7.1: expired or revoked token: renew once, then resend with a new proof.
      if (response.status === 401 && challenge === 'invalid_token' && session && !once.renewed) {
        once.renewed = true;
        await this.renew(session);
        continue;
      }
      // §11.1: a proof refused for its iat while our clock is off: align on the server's Date, once.
      if (response.status === 401 && challenge === 'invalid_dpop_proof' && !once.skew && this.learnSkew(response.headers)) {
        once.skew = true;
        continue;
      }
      // A step-up assertion is single use: an earlier attempt may have spent it.
      if (response.status === 403 && problem.code === 'step_up_required' && options.stepUp && !once.stepUp) {
        once.stepUp = true;
        stepUp = await this.stepUpHeader(options.stepUp, signal);
        continue;
      }
      const retryable = RETRYABLE_STATUSES.has(response.status) || problem.code === 'idempotency_request_in_progress';
      if (retryable && retries < retry.maxRetries) {
        const delay = retryAfterMs(response.headers.get('retry-after'), Date.now()) ?? backoffMs(retries, retry);
        if (delay <= retry.maxDelayMs) {
          retries++;
          await this.config.sleep(delay, signal);
          continue;
        }
      }
      if (problem.code === 'version_mismatch') this.versions.delete(options.path);
      // The operator locked the account: its sessions are revoked, this one is of no more use.
      if (problem.code === 'account_locked' && session) await this.endSession(problem);
      throw problem;
    }
  }

  private ifMatchFor(method: HttpMethod, options: SendOptions): string | undefined {
    const { ifMatch } = options;
    if (ifMatch === false) return undefined;
    if (typeof ifMatch === 'number') return `"${ifMatch}"`;
    if (typeof ifMatch === 'string') return ifMatch;
    return method === 'PATCH' || method === 'PUT' || method === 'DELETE' ? this.versions.get(options.path) : undefined;
  }

  /** Keeps the ETag a read or an update returned (PRODUCT §0), drops it when the resource is gone. */
  private remember(method: HttpMethod, path: string, headers: Headers): void {
    if (method === 'DELETE') {
      this.versions.delete(path);
      return;
    }
    const etag = headers.get('etag');
    if (!etag || etag.startsWith('W/')) return;
    if (method === 'GET' || method === 'PATCH' || method === 'PUT') this.versions.set(path, etag);
    // 201 Created: the tag is the new resource's, named by Location (RFC 9110 §10.2.2).
    const location = headers.get('location');
    if (method === 'POST' && location) {
      const base = new URL(this.base).pathname.replace(/\/$/, '');
      if (location.startsWith(`${base}/`)) this.versions.set(location.slice(base.length), etag);
    }
  }

  private learnSkew(headers: Headers): boolean {
    const date = Date.parse(headers.get('date') ?? '');
    if (Number.isNaN(date)) return false;
    const offset = date - this.config.now();
    if (Math.abs(offset - this.clockOffsetMs) <= SKEW_TOLERANCE_MS) return false;
    this.clockOffsetMs = offset;
    return true;
  }

  /** PRODUCT §1 step-up: a fresh assertion over this session's challenge, as base64url(JSON). */
  private async stepUpHeader(getAssertion: GetAssertion, signal?: AbortSignal): Promise<string> {
    const { data } = await this.send<ResponseBody<Operation<'/auth/step-up/begin', 'POST'>>>({
      method: 'POST',
      path: '/auth/step-up/begin',
      idempotencyKey: false,
      signal,
    });
    return base64urlJson(await getAssertion(data.options));
  }
}

function notSignedIn() {
  return {
    type: 'about:blank',
    title: 'Not signed in',
    status: 401,
    detail: 'this client holds no session: sign up or log in first',
    code: 'not_signed_in',
    request_id: '',
  };
}
