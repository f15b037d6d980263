import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { WebSocket } from 'ws';
import { buildApp } from '../../src/app.js';
import { createManualClock } from '../../src/platform/clock.js';
import type { Config } from '../../src/platform/config.js';
import type { ModuleServices } from '../../src/platform/module.js';
import type { StreamHub } from '../../src/platform/signals/hub.js';
import type { Signal } from '../../src/platform/signals/catalogue.js';
import { createStore } from '../../src/platform/store/store.js';
import type { Store } from '../../src/platform/store/store.js';
import { openPostgres } from '../../src/platform/store/db.js';
import { PUBLIC_ORIGIN, testConfig } from './app.js';
import type { TestBackend } from './backends.js';
import { TestClient } from './client.js';
import type { Device } from './client.js';
import { createContractChecker } from './contract.js';

/**
 * Helpers for the event-stream suites: several server nodes on one database (each with its
 * own store and pool, as separate processes would have), and SSE / WebSocket clients that
 * record what they receive.
 */
export interface TestNode {
  baseUrl: string;
  app: FastifyInstance;
  streams: StreamHub;
  store: Store;
  /** The node's services (the purge). */
  services: ModuleServices;
  client: TestClient;
}

export interface TestCluster {
  nodes: TestNode[];
  config: Config;
  clock: ReturnType<typeof createManualClock>;
  /** The first node's store (the suite's database). */
  store: Store;
  close(): Promise<void>;
}

export interface StartNodesOptions {
  /** Awaited once each node is built, before any request reaches it. */
  beforeFirstRequest?(): Promise<void>;
}

export async function startNodes(backend: TestBackend, count: number, env: Record<string, string> = {}, options: StartNodesOptions = {}): Promise<TestCluster> {
  const database = await backend.open();
  if (count > 1 && !database.schema) throw new Error('several nodes need a shared database (PostgreSQL)');
  const config = testConfig(database.databaseUrl, env);
  const clock = createManualClock(Date.now());
  const nodes: TestNode[] = [];
  const extraStores: Store[] = [];
  for (let i = 0; i < count; i++) {
    let store = database.store;
    if (i > 0) {
      store = createStore(openPostgres(database.databaseUrl as string, { schema: database.schema, poolSize: 5 }));
      extraStores.push(store);
    }
    const built = await buildApp({ config, store, clock, logger: false });
    const { app, streams } = built;
    await options.beforeFirstRequest?.();
    await app.listen({ host: '127.0.0.1', port: 0 });
    const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const document = await (await fetch(`${baseUrl}/api/v1/openapi.json`)).json();
    nodes.push({ baseUrl, app, streams, store: built.store, services: built.services, client: new TestClient(baseUrl, PUBLIC_ORIGIN, createContractChecker(document), clock.now) });
  }
  return {
    nodes,
    config,
    clock,
    store: nodes[0]!.store,
    async close() {
      for (const node of nodes) await node.app.close();
      for (const store of extraStores) await store.close();
      await database.cleanup();
    },
  };
}

/** A POST through one node with a fresh Idempotency-Key, asserted to succeed (200 or 201); answers the body. */
export async function postOn(node: TestNode, device: Device, path: string, body: unknown = {}): Promise<any> {
  const res = await node.client.as(device, 'POST', `/api/v1${path}`, { body, headers: { 'idempotency-key': randomUUID() } });
  assert.ok(res.status === 201 || res.status === 200, JSON.stringify(res.body));
  return res.body;
}

export const STREAM_PATH = '/api/v1/events/stream';

/** One dispatched SSE block: a signal, or the opening block (retry and id, no data). */
export interface SseBlock {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
}

async function waitUntil(check: () => boolean, timeoutMs: number, what: string, onChange: (wake: () => void) => () => void): Promise<void> {
  if (check()) return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    const stop = onChange(() => {
      if (!check()) return;
      clearTimeout(timer);
      stop();
      resolve();
    });
  });
}

/** A Server-Sent Events client on node:http (so a test can stop reading, like a slow client). */
export class SseClient {
  readonly blocks: SseBlock[] = [];
  readonly signals: Signal[] = [];
  readonly comments: string[] = [];
  ended = false;
  private buffer = '';
  private listeners = new Set<() => void>();

  constructor(readonly response: IncomingMessage) {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => this.feed(chunk));
    const end = () => {
      this.ended = true;
      this.changed();
    };
    response.on('end', end);
    response.on('close', end);
    response.on('error', end);
  }

  get status(): number {
    return this.response.statusCode ?? 0;
  }

  get headers(): IncomingHttpHeaders {
    return this.response.headers;
  }

  /** The id of the last block with one, as EventSource keeps it for Last-Event-ID. */
  get lastEventId(): string | undefined {
    for (let i = this.blocks.length - 1; i >= 0; i--) if (this.blocks[i]!.id !== undefined) return this.blocks[i]!.id;
    return undefined;
  }

  private feed(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const text = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const block: SseBlock = {};
      let isBlock = false;
      for (const line of text.split('\n')) {
        if (line.startsWith(':')) {
          this.comments.push(line.slice(1).trim());
          continue;
        }
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        isBlock = true;
        if (field === 'id') block.id = value;
        else if (field === 'event') block.event = value;
        else if (field === 'data') block.data = block.data === undefined ? value : `${block.data}\n${value}`;
        else if (field === 'retry') block.retry = Number(value);
      }
      if (!isBlock) continue;
      this.blocks.push(block);
      if (block.data !== undefined) this.signals.push(JSON.parse(block.data) as Signal);
    }
    this.changed();
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }

  private watch = (wake: () => void) => {
    this.listeners.add(wake);
    return () => this.listeners.delete(wake);
  };

  waitForSignals(count: number, timeoutMs = 3000): Promise<Signal[]> {
    return waitUntil(() => this.signals.length >= count, timeoutMs, `${count} signals (have ${this.signals.length})`, this.watch).then(() => this.signals.slice(0, count));
  }

  waitForComment(text: string, timeoutMs = 3000): Promise<void> {
    return waitUntil(() => this.comments.includes(text), timeoutMs, `comment "${text}"`, this.watch);
  }

  waitForEnd(timeoutMs = 3000): Promise<void> {
    return waitUntil(() => this.ended, timeoutMs, 'the stream to end', this.watch);
  }

  close(): void {
    this.response.destroy();
  }
}

export interface OpenOptions {
  since?: string;
  lastEventId?: string;
  headers?: Record<string, string>;
  /** Skip the proof (or the token) to test refusals. */
  noProof?: boolean;
  noToken?: boolean;
}

async function streamHeaders(client: TestClient, device: Pick<Device, 'key' | 'tokens'>, options: OpenOptions): Promise<Record<string, string>> {
  const headers: Record<string, string> = { ...options.headers };
  if (!options.noToken) headers.authorization = `DPoP ${device.tokens.access_token}`;
  if (!options.noProof) headers.dpop = await device.key.proof('GET', client.publicOrigin + STREAM_PATH, { accessToken: device.tokens.access_token });
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
  return headers;
}

function streamUrl(baseUrl: string, since: string | undefined): string {
  return `${baseUrl}${STREAM_PATH}${since !== undefined ? `?since=${encodeURIComponent(since)}` : ''}`;
}

/** Opens an SSE stream; resolves once the response head has arrived (whatever its status). */
export async function openSse(client: TestClient, device: Pick<Device, 'key' | 'tokens'>, options: OpenOptions = {}): Promise<SseClient> {
  const headers = { accept: 'text/event-stream', ...(await streamHeaders(client, device, options)) };
  return new Promise((resolve, reject) => {
    const req = httpRequest(streamUrl(client.baseUrl, options.since), { headers, agent: false }, (response) => resolve(new SseClient(response)));
    req.on('error', reject);
    req.end();
  });
}

/** What a WebSocket client saw: frames, and how it closed. */
export class WsClient {
  readonly frames: any[] = [];
  closeCode?: number;
  closeReason?: string;
  private listeners = new Set<() => void>();

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.frames.push(JSON.parse(String(data)));
      this.changed();
    });
    socket.on('close', (code, reason) => {
      this.closeCode = code;
      this.closeReason = String(reason);
      this.changed();
    });
  }

  get signals(): Signal[] {
    return this.frames.filter((f) => f.type === 'signal').map((f) => f.signal as Signal);
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }

  private watch = (wake: () => void) => {
    this.listeners.add(wake);
    return () => this.listeners.delete(wake);
  };

  waitForSignals(count: number, timeoutMs = 3000): Promise<Signal[]> {
    return waitUntil(() => this.signals.length >= count, timeoutMs, `${count} WebSocket signals (have ${this.signals.length})`, this.watch).then(() => this.signals.slice(0, count));
  }

  waitForClose(timeoutMs = 3000): Promise<number> {
    return waitUntil(() => this.closeCode !== undefined, timeoutMs, 'the WebSocket to close', this.watch).then(() => this.closeCode as number);
  }

  close(): void {
    this.socket.close();
  }
}

export type WsOpenResult = { ok: true; ws: WsClient; protocol: string } | { ok: false; status: number; body: string };

/**
 * Opens a WebSocket on the stream path. `via: 'headers'` authenticates like any request (Node);
 * `via: 'subprotocols'` the way a browser must.
 */
export async function openWs(
  client: TestClient,
  device: Pick<Device, 'key' | 'tokens'>,
  options: OpenOptions & { via?: 'headers' | 'subprotocols'; protocols?: string[] } = {},
): Promise<WsOpenResult> {
  const url = streamUrl(client.baseUrl, options.since).replace(/^http/, 'ws');
  let headers: Record<string, string> = {};
  let protocols = options.protocols;
  if (options.via === 'subprotocols') {
    const proof = await device.key.proof('GET', client.publicOrigin + STREAM_PATH, { accessToken: device.tokens.access_token });
    protocols ??= ['vid.events.v1', `vid.auth.${device.tokens.access_token}`, `vid.dpop.${proof}`];
  } else {
    headers = await streamHeaders(client, device, options);
  }
  const socket = new WebSocket(url, protocols, { headers });
  const ws = new WsClient(socket);
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ ok: true, ws, protocol: socket.protocol }));
    socket.once('unexpected-response', (_req, response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ ok: false, status: response.statusCode ?? 0, body }));
    });
    socket.once('error', (error) => reject(error));
  });
}
