// Test harness for the client against the real server (test/helpers/app.ts). The client talks to
// the service's public origin (what proofs' htu and WebAuthn origins name); the fetch below
// delivers those requests to the test server's real port, as a reverse proxy would.
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { PUBLIC_ORIGIN } from '../../test/helpers/app.js';
import type { TestApp } from '../../test/helpers/app.js';
import { SoftwareAuthenticator } from '../../test/helpers/authenticator.js';
import { createVidClient, memoryStorage } from '../src/index.js';
import type { CreationOptions, FetchLike, RequestOptions, VidClientOptions, VidStorage } from '../src/index.js';

export const API = `${PUBLIC_ORIGIN}/api/v1`;

export interface Exchange {
  method: string;
  /** Path below /api/v1, with the query. */
  path: string;
  headers: Headers;
  body: string | undefined;
  /** The status the client saw (undefined: the fetch threw). */
  status?: number;
}

/** Sits between the client and the wire; return undefined to pass the request on. */
export type Interceptor = (request: Exchange, forward: () => Promise<Response>, attempt: number) => Promise<Response | undefined> | Response | undefined;

export interface ClientHarness {
  client: ReturnType<typeof createVidClient>;
  storage: VidStorage;
  /** Every request the client sent, in order. */
  log: Exchange[];
  /** The delays the client slept for (retries, reconnects); sleeping itself is capped at 20 ms. */
  sleeps: number[];
  authenticator: SoftwareAuthenticator;
  intercept(fn: Interceptor | undefined): void;
  /** The requests to one method + path (path without query). */
  calls(method: string, path: string): Exchange[];
  /** The authenticator callbacks the client takes, answered by the software authenticator. */
  createCredential(options: CreationOptions): ReturnType<SoftwareAuthenticator['createCredential']>;
  getAssertion(options: RequestOptions): ReturnType<SoftwareAuthenticator['getAssertion']>;
}

export function clientFor(
  app: TestApp,
  { authenticator = new SoftwareAuthenticator(), ...options }: Partial<VidClientOptions> & { authenticator?: SoftwareAuthenticator } = {},
): ClientHarness {
  const log: Exchange[] = [];
  const sleeps: number[] = [];
  const attempts = new Map<string, number>();
  let interceptor: Interceptor | undefined;
  const toServer = (url: string) => app.baseUrl + url.slice(PUBLIC_ORIGIN.length);

  const fetchThrough: FetchLike = async (url, init) => {
    if (!url.startsWith(PUBLIC_ORIGIN)) throw new Error(`unexpected URL ${url}`);
    const exchange: Exchange = {
      method: init.method ?? 'GET',
      path: url.slice(API.length),
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? init.body : undefined,
    };
    log.push(exchange);
    const key = `${exchange.method} ${exchange.path.split('?')[0]}`;
    const attempt = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, attempt);
    const forward = () => fetch(toServer(url), init);
    try {
      const response = (await interceptor?.(exchange, forward, attempt)) ?? (await forward());
      exchange.status = response.status;
      return response;
    } catch (error) {
      exchange.status = undefined;
      throw error;
    }
  };

  const storage = options.storage ?? memoryStorage();
  const client = createVidClient({
    baseUrl: API,
    fetch: fetchThrough,
    storage,
    now: app.clock.now,
    sleep: async (ms, signal) => {
      sleeps.push(ms);
      signal?.throwIfAborted();
      await new Promise((resolve) => setTimeout(resolve, Math.min(ms, 20)));
    },
    ...options,
  });
  return {
    client,
    storage,
    log,
    sleeps,
    authenticator,
    intercept(fn) {
      interceptor = fn;
    },
    calls: (method, path) => log.filter((e) => e.method === method && e.path.split('?')[0] === path),
    // The document types WebAuthn enumerations as strings; the authenticator wants the DOM unions.
    createCredential: (creation) => authenticator.createCredential(creation as PublicKeyCredentialCreationOptionsJSON, PUBLIC_ORIGIN),
    getAssertion: (request) => authenticator.getAssertion(request as PublicKeyCredentialRequestOptionsJSON, PUBLIC_ORIGIN),
  };
}

/** Signs up through the client (a new account, this harness's authenticator). */
export async function signUp(h: ClientHarness, username: string) {
  return h.client.register({ username, createCredential: h.createCredential });
}

/** The JOSE header and claims of a compact JWS, without verifying it. */
export function decodeJwt(token: string): { header: Record<string, any>; claims: Record<string, any> } {
  const [header, claims] = token.split('.');
  const decode = (part: string | undefined) => JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8'));
  return { header: decode(header), claims: decode(claims) };
}

/** A problem+json response made up by a test (a proxy or an overloaded node answering). */
export function syntheticProblem(status: number, code: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ type: `urn:vid:problem:${code}`, title: code, status, detail: 'made up by the test', code, request_id: 'req_test' }), {
    status,
    headers: { 'content-type': 'application/problem+json', ...headers },
  });
}

/** Polls `check` every 10 ms until it holds, or fails after `ms`. */
export async function eventually(check: () => boolean, ms = 3000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
