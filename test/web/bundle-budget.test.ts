// The web app's JavaScript stays small enough for a phone on a slow network (built by
// `npm run build:web`, which `npm test` runs first): what the page loads first (the entry and
// the chunks it imports) and each screen with everything it loads, gzipped, under 60 KB. A
// screen counts what it loads later by itself too: the phone formatter (libphonenumber-js
// AsYouType with its metadata, about 32 KB) is counted with Fields, whose phone box loads it,
// and the QR code with Security. The message layer (core/messages.ts, every refusal in words)
// loads the first time something fails, on any screen: it is reported beside the budget.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { projectRoot } from '../../src/platform/paths.js';

export const BUDGET_BYTES = 60 * 1024;
const DIST = join(projectRoot, 'web', 'dist');
const MANIFEST = join(DIST, '.vite', 'manifest.json');

interface Chunk { file: string; src?: string; isEntry?: boolean; isDynamicEntry?: boolean; imports?: string[]; dynamicImports?: string[] }
type Manifest = Record<string, Chunk>;

function load(): Manifest {
  assert.ok(existsSync(MANIFEST), 'web/dist is not built: npm run build:web');
  return JSON.parse(readFileSync(MANIFEST, 'utf8')) as Manifest;
}

const gzipped = new Map<string, number>();
const sizeOf = (file: string) => {
  if (!gzipped.has(file)) gzipped.set(file, gzipSync(readFileSync(join(DIST, file))).length);
  return gzipped.get(file)!;
};
const bytesOf = (manifest: Manifest, keys: Iterable<string>) => [...keys].reduce((sum, key) => sum + sizeOf(manifest[key]!.file), 0);

/** A chunk and every chunk it imports statically (what loading it downloads). */
function closure(manifest: Manifest, key: string, into = new Set<string>()): Set<string> {
  if (into.has(key)) return into;
  into.add(key);
  for (const next of manifest[key]?.imports ?? []) closure(manifest, next, into);
  return into;
}

/**
 * What a screen downloads: the first load, the screen's chunks, and what its own chunks load
 * later (their dynamic imports, followed again), other screens and the message layer aside.
 */
function screenLoad(manifest: Manifest, key: string, first: Set<string>, elsewhere: Set<string>): { keys: Set<string>; later: string[] } {
  const keys = closure(manifest, key, new Set(first));
  const later: string[] = [];
  const own = [...keys].filter((k) => !first.has(k));
  for (let i = 0; i < own.length; i++) {
    for (const next of manifest[own[i]!]!.dynamicImports ?? []) {
      if (elsewhere.has(next) || keys.has(next)) continue;
      later.push(next);
      const before = new Set(keys);
      closure(manifest, next, keys);
      own.push(...[...keys].filter((k) => !before.has(k)));
    }
  }
  return { keys, later };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const nameOf = (manifest: Manifest, key: string) => (manifest[key]!.src ?? key).replace(/^.*\/node_modules\//, '').replace(/^src\//, '');

describe('web: bundle budget', () => {
  it(`the first load and every screen with all it loads stay under ${BUDGET_BYTES / 1024} KB of JavaScript gzipped`, () => {
    const manifest = load();
    const entry = Object.keys(manifest).find((key) => manifest[key]!.isEntry)!;
    const first = closure(manifest, entry);
    const firstBytes = bytesOf(manifest, first);
    assert.ok(firstBytes < BUDGET_BYTES, `the first load is ${kb(firstBytes)}`);
    // What the entry loads on demand: the screens, and the message layer.
    const fromEntry = new Set([...first].flatMap((key) => manifest[key]!.dynamicImports ?? []));
    const screens = [...fromEntry].filter((key) => manifest[key]!.src?.startsWith('src/views/'));
    const report = [`first load ${kb(firstBytes)}`];
    const loadsLater = new Map<string, string[]>();
    for (const key of screens) {
      const { keys, later } = screenLoad(manifest, key, first, fromEntry);
      const bytes = bytesOf(manifest, keys);
      loadsLater.set(key, later.map((k) => manifest[k]!.src ?? k));
      report.push(`${nameOf(manifest, key)} ${kb(bytes)}${later.length ? ` (with ${later.map((k) => nameOf(manifest, k)).join(', ')})` : ''}`);
      assert.ok(bytes < BUDGET_BYTES, `${manifest[key]!.src} with the first load and what it loads later is ${kb(bytes)}`);
    }
    // The phone box's formatter is counted with Fields (a renamed file must not drop it silently).
    const fields = screens.find((key) => manifest[key]!.src === 'src/views/fields.tsx');
    assert.ok(fields, 'the Fields screen is a chunk of its own');
    assert.ok(loadsLater.get(fields)!.some((src) => src.includes('as-you-type')), 'the Fields screen counts the phone formatter');
    const formatter = Object.values(manifest).find((c) => c.src?.includes('as-you-type'));
    const messages = Object.values(manifest).find((c) => c.src === 'src/core/messages.ts');
    const all = Object.values(manifest).filter((c) => c.file.endsWith('.js')).reduce((sum, c) => sum + sizeOf(c.file), 0);
    report.push(
      `phone formatter alone ${formatter ? kb(sizeOf(formatter.file)) : 'none'}`,
      `message layer (loaded on the first failure) ${messages ? kb(sizeOf(messages.file)) : 'in the first load'}`,
      `all scripts ${kb(all)}`,
    );
    console.log(`web bundle (gzipped): ${report.join('; ')}`);
  });
});
