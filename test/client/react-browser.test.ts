// @vid/react in a real browser (Chromium through playwright-core) against the real server: the
// example app (react/examples/contacts) built twice, with React and with Preact through
// preact/compat. A person signs up with a passkey (Chromium's virtual authenticator), follows
// someone by their share link, and sees their card in the contact list; when that person changes
// their card on their own device, the list shows the new value without a reload.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, request as forward } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { createVidClient } from '../../client/src/index.js';
import { softwareAuthenticator } from '../../client/src/testing/index.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']
  .find((path): path is string => !!path && existsSync(path));
// The database plays no part here: the first backend this run uses.
const backend = backends.find((b) => !b.skip)!;
const run = promisify(execFile);
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** The example as one ES module, with React or with Preact standing in for it (preact/compat). */
async function bundle(framework: 'react' | 'preact'): Promise<string> {
  const preact = framework === 'preact';
  const result = await build({
    configFile: false,
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
    oxc: { jsx: { runtime: 'automatic', importSource: preact ? 'preact' : 'react' } },
    resolve: {
      alias: [
        // The packages as an app installs them; here from the checkout's sources.
        { find: /^@vid\/client$/, replacement: here('../../client/src/index.ts') },
        { find: /^@vid\/react$/, replacement: here('../../react/src/index.ts') },
        ...(preact
          ? [
              { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
              { find: /^react-dom$/, replacement: 'preact/compat' },
              { find: /^react$/, replacement: 'preact/compat' },
            ]
          : []),
      ],
    },
    build: { write: false, minify: false, lib: { entry: here('../../react/examples/contacts/app.tsx'), formats: ['es'], fileName: 'app' } },
  });
  const outputs = (Array.isArray(result) ? result : [result]).flatMap((r) => ('output' in r ? r.output : []));
  const chunk = outputs.find((o) => o.type === 'chunk');
  if (!chunk || chunk.type !== 'chunk') throw new Error('vite produced no bundle');
  return chunk.code;
}

describe(`@vid/react: the example app in a browser [${backend.name}]`, { skip: CHROMIUM ? false : 'no Chromium found (set CHROMIUM_PATH)' }, () => {
  let proxy: Server;
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let clock: ReturnType<typeof setInterval> | undefined;
  const code: Record<string, string> = {};

  before(async () => {
    code.react = await bundle('react');
    code.preact = await bundle('preact');
    // The public origin: serves the page and the bundles, and passes /api/ through, streaming.
    proxy = createServer((req, res) => {
      const page = /^\/(react|preact)\/$/.exec(req.url ?? '');
      if (page) {
        return void res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<!doctype html><meta charset="utf-8"><title>contacts</title><div id="app"></div><script type="module" src="/${page[1]}/app.js"></script>`);
      }
      const script = /^\/(react|preact)\/app\.js$/.exec(req.url ?? '');
      if (script) return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(code[script[1]!]);
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
  });

  after(async () => {
    clearInterval(clock);
    await browser?.close();
    await t?.close();
    await new Promise((resolve) => proxy?.close(resolve));
  });

  async function openPage(framework: string): Promise<Page> {
    const page = await browser.newPage();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${origin}/${framework}/`);
    await page.getByRole('button', { name: 'Sign up' }).waitFor();
    assert.deepEqual(errors, []);
    return page;
  }

  it('the example and the binding type-check (React\'s JSX, strict)', async () => {
    const tsc = await run(process.execPath, [here('../../node_modules/typescript/bin/tsc'), '-p', here('../../react/examples/contacts/tsconfig.json')]).catch((error: { stdout: string }) => error);
    assert.equal(tsc.stdout, '');
  });

  for (const framework of ['react', 'preact'] as const) {
    it(`${framework}: a live contact list updates when the other person changes their card`, { timeout: 90_000 }, async () => {
      const page = await openPage(framework);
      // Ben signs up in the browser with a passkey.
      const ben = uniqueName('ben');
      await page.getByLabel('Username').fill(ben);
      await page.getByRole('button', { name: 'Sign up' }).click();
      await page.getByText(`Signed in as @${ben}`).waitFor({ timeout: 20_000 });
      await page.getByText('You follow no one yet.').waitFor();

      // Ada, on her own device (here this process), shares a card with her phone number.
      const ada = createVidClient({ baseUrl: `${origin}/api/v1` });
      await ada.register({ username: uniqueName('ada'), createCredential: softwareAuthenticator(origin).createCredential });
      await ada.me.patch({ display_name: 'Ada Lovelace' });
      const phone = await ada.fields.create({ type: 'phone', value: '+44 20 7946 0958', label: 'mobile' });
      const friends = await ada.profiles.create({ name: 'Friends' });
      await ada.profiles.expose(friends.id, phone.id);
      const link = await ada.shareLinks.create({ profile_id: friends.id, auto_approve: true });

      // Ben follows her link; the list shows her card (contacts.changed, then her card read).
      await page.getByLabel('Share link').fill(link.token);
      await page.getByRole('button', { name: 'Follow' }).click();
      const list = page.getByRole('list', { name: 'Contacts' });
      await list.getByText('Ada Lovelace: +442079460958').waitFor({ timeout: 20_000 });

      // Ada changes her number: Ben's list shows the new one by itself, no reload.
      const navigations: string[] = [];
      page.on('framenavigated', (frame) => navigations.push(frame.url()));
      await ada.fields.update(phone.id, { value: '+44 20 7946 0959' });
      await list.getByText('Ada Lovelace: +442079460959').waitFor({ timeout: 20_000 });
      assert.equal(await list.getByRole('listitem').count(), 1);
      assert.deepEqual(navigations, []);
      await ada.logout();
      await page.close();
    });
  }
});
