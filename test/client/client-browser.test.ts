// The client in a real browser (Chromium through playwright-core), against the real server:
// WebCrypto DPoP keys, fetch-streamed SSE, and passkeys made by Chromium's virtual authenticator
// through @simplewebauthn/browser, as the README's browser example does. The page and the API
// share one origin (a small proxy in front of the test server), like the web app served by VID.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, request as forward } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import type { scenario } from '../../client/test/browser-entry.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']
  .find((path): path is string => !!path && existsSync(path));
// The database plays no part here: the first backend this run uses.
const backend = backends.find((b) => !b.skip)!;

async function bundle(): Promise<string> {
  const result = await build({
    configFile: false,
    logLevel: 'silent',
    build: { write: false, minify: false, lib: { entry: fileURLToPath(new URL('../../client/test/browser-entry.ts', import.meta.url)), formats: ['es'], fileName: 'bundle' } },
  });
  const outputs = (Array.isArray(result) ? result : [result]).flatMap((r) => ('output' in r ? r.output : []));
  const chunk = outputs.find((o) => o.type === 'chunk');
  if (!chunk || chunk.type !== 'chunk') throw new Error('vite produced no bundle');
  return chunk.code;
}

describe(`client: in a browser [${backend.name}]`, { skip: CHROMIUM ? false : 'no Chromium found (set CHROMIUM_PATH)' }, () => {
  let proxy: Server;
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let origin: string;
  let clock: ReturnType<typeof setInterval> | undefined;

  before(async () => {
    const code = await bundle();
    const html = `<!doctype html><meta charset="utf-8"><title>vid client</title>
<script type="module">import * as vid from '/bundle.js'; globalThis.vidLib = vid;</script>`;
    // The public origin: serves the page and the bundle, and passes /api/ through, streaming.
    proxy = createServer((req, res) => {
      if (req.url === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(html);
      if (req.url === '/bundle.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(code);
      if (!req.url?.startsWith('/api/')) return void res.writeHead(404).end();
      const upstream = forward(`${t.baseUrl}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      res.on('close', () => upstream.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, resolve));
    origin = `http://localhost:${(proxy.address() as AddressInfo).port}`;
    // Real time in the browser: the server's clock must not stand still.
    t = await startTestApp(backend, { PUBLIC_ORIGIN: origin });
    t.clock.set(Date.now());
    clock = setInterval(() => t.clock.set(Date.now()), 50);

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => (globalThis as any).vidLib !== undefined);
  });

  after(async () => {
    clearInterval(clock);
    await browser?.close();
    await t?.close();
    await new Promise((resolve) => proxy?.close(resolve));
  });

  it('signs up with a passkey, calls the API with DPoP, follows the stream, logs in again', { timeout: 60_000 }, async () => {
    const username = uniqueName('web');
    // A string, so nothing of this file's transpilation (helpers like __name) reaches the page.
    const result = (await page.evaluate(`globalThis.vidLib.scenario(${JSON.stringify(username)})`)) as Awaited<ReturnType<typeof scenario>>;

    assert.equal(result.available, true);
    assert.equal(result.username, username);
    assert.equal(result.extractable, false, 'the device key cannot be exported');
    assert.equal(result.version, 2);
    assert.deepEqual(result.signals, [['me.changed', '/me']]);
    assert.equal(result.sessions, 2);
    assert.deepEqual(result.taken, { problem: true, status: 409, code: 'username_taken' });
    assert.equal(result.signedOut, true);
  });
});
