// Browser end-to-end harness: the real service (fresh SQLite, real clock) on a free port with
// PUBLIC_ORIGIN = the URL the pages open, Debian's Chromium through playwright-core, and one
// virtual authenticator (resident keys, user verification) per device. No Chromium: the suite
// fails (launch throws); it never skips.
import { freePort } from './ports.js';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import type { ModuleServices } from '../../src/platform/module.js';
import { buildApp } from '../../src/app.js';
import { projectRoot } from '../../src/platform/paths.js';
import { testConfig } from './app.js';
import { backends } from './backends.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = join(projectRoot, 'test-artifacts', 'e2e');
/** Every screen at a phone's and a desktop's width, light and dark (looked at by people, not compared). */
export const SCREENS = join(ARTIFACTS, 'screens');
const AXE = readFileSync(join(projectRoot, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/**
 * What a person must never read (the issue "The web app, rebuilt for people"): validator text,
 * standards' names, API field names, raw user-agent strings.
 */
export const NOT_FOR_PEOPLE = /must NOT|must be null|must match|anyOf|oneOf|E\.164|line_type|details\.|RFC ?\d|A-label|ISO 3166|alpha-2|Mozilla\/5\.0|AppleWebKit|Passkey on Chrom/;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; html: string }[];
}
const sqlite = backends.find((b) => b.name === 'sqlite')!;

export interface Device {
  name: string;
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  /** The current virtual authenticator (a test may swap it). */
  authenticatorId: string;
  /** Saves a full-page screenshot as test-artifacts/e2e/<name>.png. */
  shot(name: string): Promise<void>;
  /** Waits for the app to show a view (main[data-view]) with its content loaded (no skeleton left). */
  view(name: string): Promise<void>;
  /**
   * Saves the screen at 390 px and 1280 px, light and dark, as test-artifacts/e2e/screens/<name>-*.png,
   * and checks each: axe-core finds no serious or critical violation, no control lacks a label,
   * nothing scrolls sideways, no words that are not for people.
   */
  screens(name: string): Promise<void>;
  /** axe-core's serious and critical violations on the page as it is. */
  axe(): Promise<AxeViolation[]>;
  /** Opens the app and creates an account as a person does: a username, Enter, a passkey; ends on Account. */
  signUp(username: string): Promise<void>;
  credentials(): Promise<{ credentialId: string; isResidentCredential: boolean }[]>;
}

export interface E2e {
  origin: string;
  /** The service's SQLite file (a test writes thousands of rows straight into it: bench/lib/people.ts). */
  databaseFile: string;
  browser: Browser;
  /** The service's own modules (an operator's lock, as `npm run admin` does it). */
  services: ModuleServices;
  device(name: string, options?: { width?: number; height?: number }): Promise<Device>;
  /** Stops the server (the database stays), as a crash or a deploy would; `start` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Inputs, selects and textareas with no <label> and no aria-label, and clickable non-buttons. */
const UNLABELLED = `[...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
  .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label'))
  .map((el) => el.outerHTML.slice(0, 80))
  .concat([...document.querySelectorAll('[onclick], div[role=button], span[role=button]')].map((el) => el.outerHTML.slice(0, 80)))`;


/** Chromium over one origin: devices (a context and page each, with a passkey) opened at it. */
export interface Browsing {
  browser: Browser;
  device(name: string, options?: { width?: number; height?: number }): Promise<Device>;
  close(): Promise<void>;
}

/**
 * Debian's Chromium, its devices opening `origin` (a service already listening there). Used by
 * startE2e, and by suites that run services of their own (two regions, test/e2e/regions.test.ts).
 */
export async function openBrowser(origin: string): Promise<Browsing> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--host-resolver-rules=MAP localhost 127.0.0.1'],
  });
  const contexts: BrowserContext[] = [];
  return {
    browser,
    async device(name, options = {}) {
      const context = await browser.newContext({ viewport: { width: options.width ?? 1024, height: options.height ?? 800 }, acceptDownloads: true });
      contexts.push(context);
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(String(error)));
      page.on('console', (msg) => {
        if (msg.type() === 'error' && process.env.E2E_VERBOSE) console.error(`[${name}] ${msg.text()}`);
      });
      const cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
      });
      const device: Device = {
        name,
        context,
        page,
        cdp,
        authenticatorId,
        shot: async (shot) => {
          await page.screenshot({ path: join(ARTIFACTS, `${shot}.png`), fullPage: true });
          // Every screen shot is also checked: each control is labelled, each button is a <button>.
          const unlabelled = (await page.evaluate(UNLABELLED)) as string[];
          if (unlabelled.length) throw new Error(`${shot}: controls without a label: ${unlabelled.join(', ')}`);
          const width = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
          if (Number(width) > 0) throw new Error(`${shot}: the page scrolls sideways by ${width}px`);
        },
        view: async (view) => {
          await page.locator(`main[data-view="${view}"]`).waitFor();
          await page.locator('main .skeleton').first().waitFor({ state: 'detached' });
        },
        signUp: async (username) => {
          await page.goto(`${origin}/`);
          await device.view('welcome');
          await page.getByLabel('Choose a username').fill(username);
          await page.getByText(`“${username}” is available.`).waitFor();
          await page.keyboard.press('Enter');
          await device.view('account');
        },
        axe: async () => {
          if ((await page.evaluate('typeof window.axe')) !== 'object') await page.evaluate(AXE);
          const result = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] })`)) as { violations: AxeViolation[] };
          return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
        },
        screens: async (shot) => {
          mkdirSync(SCREENS, { recursive: true });
          const before = page.viewportSize();
          try {
            for (const [width, height] of [[390, 844], [1280, 900]] as const) {
              await page.setViewportSize({ width, height });
              for (const colorScheme of ['light', 'dark'] as const) {
                await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
                // The whole page in one window as tall as it is, so the header sits at the top and the
                // phone's bottom bar at the bottom, over nothing (a full-page capture would draw them mid-page).
                const frame = 'window.scrollTo(0, 0); new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))';
                await page.evaluate(frame);
                const tall = Number(await page.evaluate('document.documentElement.scrollHeight'));
                if (tall > height) await page.setViewportSize({ width, height: tall });
                await page.evaluate(frame);
                const file = `${shot}-${width}-${colorScheme}`;
                await page.screenshot({ path: join(SCREENS, `${file}.png`) });
                if (tall > height) await page.setViewportSize({ width, height });
                const violations = await device.axe();
                if (violations.length) {
                  throw new Error(`${file}: axe finds ${violations.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`).join('; ')}`);
                }
                const unlabelled = (await page.evaluate(UNLABELLED)) as string[];
                if (unlabelled.length) throw new Error(`${file}: controls without a label: ${unlabelled.join(', ')}`);
                const sideways = Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'));
                if (sideways > 0) throw new Error(`${file}: the page scrolls sideways by ${sideways}px`);
                const text = String(await page.evaluate('document.body.innerText'));
                const leak = NOT_FOR_PEOPLE.exec(text);
                if (leak) throw new Error(`${file}: shows “${leak[0]}” in ${JSON.stringify(text.slice(Math.max(0, leak.index - 80), leak.index + 80))}`);
              }
            }
          } finally {
            await page.emulateMedia({ colorScheme: null, reducedMotion: null });
            if (before) await page.setViewportSize(before);
          }
        },
        credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId: device.authenticatorId })).credentials,
      };
      return device;
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close().catch(() => undefined);
    },
  };
}

/** `env`: server settings for this suite (ACCOUNT_GRACE_DAYS, say), on top of the test defaults. */
export async function startE2e(env: Record<string, string> = {}): Promise<E2e> {
  const database = await sqlite.open();
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  // The config is built once the port is known: WebAuthn's RP id and DPoP's htu use this origin.
  const config = testConfig(undefined, { ...env, PUBLIC_ORIGIN: origin });
  let { app, services } = await buildApp({ config, store: database.store, logger: false });
  await app.listen({ host: '127.0.0.1', port });
  let running = true;
  let browsing: Browsing;
  try {
    browsing = await openBrowser(origin);
  } catch (error) {
    await app.close();
    await database.cleanup();
    throw error;
  }
  return {
    origin,
    databaseFile: database.file!,
    browser: browsing.browser,
    get services() {
      return services;
    },
    async stop() {
      if (!running) return;
      running = false;
      await app.close();
    },
    async start() {
      if (running) return;
      ({ app, services } = await buildApp({ config, store: database.store, logger: false }));
      await app.listen({ host: '127.0.0.1', port });
      running = true;
    },
    device: (name, options) => browsing.device(name, options),
    async close() {
      await browsing.close();
      if (running) await app.close();
      await database.cleanup();
    },
  };
}
