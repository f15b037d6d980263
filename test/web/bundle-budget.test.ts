// The web app's JavaScript stays small enough for a phone on a slow network (built by
// `npm run build:web`, which `npm test` runs first): what the page loads first (the entry and
// the chunks it imports) and what each screen adds, gzipped, under 60 KB. The phone formatter
// (libphonenumber-js AsYouType with its metadata, about 33 KB by itself) loads only when a phone
// box shows, and is reported beside the budget.
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

function load(): Record<string, Chunk> {
  assert.ok(existsSync(MANIFEST), 'web/dist is not built: npm run build:web');
  return JSON.parse(readFileSync(MANIFEST, 'utf8')) as Record<string, Chunk>;
}

const gzipped = new Map<string, number>();
const sizeOf = (file: string) => {
  if (!gzipped.has(file)) gzipped.set(file, gzipSync(readFileSync(join(DIST, file))).length);
  return gzipped.get(file)!;
};

/** A chunk and every chunk it imports statically (what loading it downloads). */
function closure(manifest: Record<string, Chunk>, key: string, into = new Set<string>()): Set<string> {
  if (into.has(key)) return into;
  into.add(key);
  for (const next of manifest[key]?.imports ?? []) closure(manifest, next, into);
  return into;
}
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

describe('web: bundle budget', () => {
  it(`the first load and every screen stay under ${BUDGET_BYTES / 1024} KB of JavaScript gzipped`, () => {
    const manifest = load();
    const entry = Object.keys(manifest).find((key) => manifest[key]!.isEntry)!;
    const first = closure(manifest, entry);
    const firstBytes = [...first].reduce((sum, key) => sum + sizeOf(manifest[key]!.file), 0);
    assert.ok(firstBytes < BUDGET_BYTES, `the first load is ${kb(firstBytes)}`);
    const report = [`first load ${kb(firstBytes)}`];
    for (const [key, chunk] of Object.entries(manifest)) {
      if (!chunk.isDynamicEntry || key.includes('as-you-type')) continue;
      const screen = closure(manifest, key, new Set(first));
      const bytes = [...screen].reduce((sum, k) => sum + sizeOf(manifest[k]!.file), 0);
      report.push(`${chunk.src ?? key} ${kb(bytes)}`);
      assert.ok(bytes < BUDGET_BYTES, `${chunk.src ?? key} with the first load is ${kb(bytes)}`);
    }
    const all = Object.values(manifest).filter((c) => c.file.endsWith('.js')).reduce((sum, c) => sum + sizeOf(c.file), 0);
    const formatter = Object.values(manifest).find((c) => c.src?.includes('as-you-type'));
    report.push(`phone formatter ${formatter ? kb(sizeOf(formatter.file)) : 'none'}`, `all scripts ${kb(all)}`);
    console.log(`web bundle (gzipped): ${report.join('; ')}`);
  });
});
