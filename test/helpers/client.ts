import { SoftwareAuthenticator } from './authenticator.js';
import type { ContractChecker } from './contract.js';
import { createDpopKey } from './dpop.js';
import type { DpopKey, ProofOptions } from './dpop.js';

export interface CallOptions {
  body?: unknown;
  /** Sent as is, for malformed-body tests and binary uploads (a photo). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** Signs a DPoP proof for this request with the key. */
  key?: DpopKey;
  proofOptions?: ProofOptions;
  token?: string;
  scheme?: 'DPoP' | 'Bearer';
  /** Skip the contract check (only for requests outside /api/v1). */
  unchecked?: boolean;
}

export interface CallResult {
  status: number;
  headers: Headers;
  body: any;
}

export interface Tokens {
  session_id: string;
  access_token: string;
  refresh_token: string;
  expires_in: number;
  trusted: boolean;
}

/** One device of a person: its DPoP key, its authenticator and the tokens it holds. */
export interface Device {
  username: string;
  key: DpopKey;
  authenticator: SoftwareAuthenticator;
  tokens: Tokens;
  accountId: string;
}

export class TestClient {
  constructor(
    readonly baseUrl: string,
    readonly publicOrigin: string,
    private readonly contract: ContractChecker,
    private readonly now: () => number,
  ) {}

  newKey(alg: 'ES256' | 'ES384' | 'EdDSA' = 'ES256'): Promise<DpopKey> {
    return createDpopKey(alg, this.now);
  }

  async call(method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | Buffer | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    if (options.token) headers.authorization ??= `${options.scheme ?? 'DPoP'} ${options.token}`;
    if (options.key) {
      const url = this.publicOrigin + path.split('?')[0];
      headers.dpop ??= await options.key.proof(method, url, { accessToken: options.token, ...options.proofOptions });
    }
    const response = await fetch(this.baseUrl + path, { method, headers, body: typeof body === "string" || body === undefined ? body : new Uint8Array(body) });
    const contentType = response.headers.get('content-type');
    // An image is bytes, not text.
    if (contentType?.startsWith('image/')) {
      const bytes = Buffer.from(await response.arrayBuffer());
      // The contract describes bytes as a string (contentEncoding binary): checked as one.
      if (!options.unchecked) this.contract.check(method, path, response.status, contentType, bytes.toString('latin1'));
      return { status: response.status, headers: response.headers, body: bytes };
    }
    const text = await response.text();
    // A body with a type is what it says, even empty (an address book with no cards); none is null.
    const parsed = text && contentType?.includes('json') ? JSON.parse(text) : contentType ? text : text || null;
    if (!options.unchecked) this.contract.check(method, path, response.status, contentType, parsed);
    return { status: response.status, headers: response.headers, body: parsed };
  }

  /** An authenticated call from a device. */
  as(device: Device, method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
    return this.call(method, path, { key: device.key, token: device.tokens.access_token, ...options });
  }

  async signUp(username: string, authenticator = new SoftwareAuthenticator(), key?: DpopKey): Promise<Device> {
    const deviceKey = key ?? (await this.newKey());
    const begin = await this.call('POST', '/api/v1/auth/register/begin', { body: { username } });
    if (begin.status !== 200) throw new Error(`register/begin ${begin.status}: ${JSON.stringify(begin.body)}`);
    const credential = await authenticator.createCredential(begin.body.options, this.publicOrigin);
    const finish = await this.call('POST', '/api/v1/auth/register/finish', {
      body: { ceremony_id: begin.body.ceremony_id, username, credential },
      key: deviceKey,
    });
    if (finish.status !== 201) throw new Error(`register/finish ${finish.status}: ${JSON.stringify(finish.body)}`);
    return { username, key: deviceKey, authenticator, tokens: finish.body.tokens, accountId: finish.body.account.id };
  }

  async logIn(authenticator: SoftwareAuthenticator, key?: DpopKey): Promise<{ status: number; body: any; key: DpopKey }> {
    const deviceKey = key ?? (await this.newKey());
    const begin = await this.call('POST', '/api/v1/auth/login/begin');
    const credential = await authenticator.getAssertion(begin.body.options, this.publicOrigin);
    const finish = await this.call('POST', '/api/v1/auth/login/finish', { body: { ceremony_id: begin.body.ceremony_id, credential }, key: deviceKey });
    return { status: finish.status, body: finish.body, key: deviceKey };
  }
}

let counter = 0;
/** A username no other test in the run uses. */
export function uniqueName(prefix = 'user'): string {
  counter += 1;
  return `${prefix}${process.pid}x${counter}${Math.random().toString(36).slice(2, 6)}`;
}
