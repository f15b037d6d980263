// The phone box formats as it is typed in every country (web/src/ui/phone-input.tsx). The build
// takes libphonenumber-js's "es6-modern" modules instead of its exported "es6" ones (smaller,
// web/vite.config.ts, decision 230): the formatter the browser gets, read from web/dist, must
// type every country's example number exactly as the package's exported build does.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { before, describe, it } from 'node:test';
import examples from 'libphonenumber-js/mobile/examples';
import metadata from 'libphonenumber-js/min/metadata';
import { AsYouType as Exported } from '../../web/src/ui/as-you-type.js';
import { projectRoot } from '../../src/platform/paths.js';

type Formatter = new (country?: string) => { input: (text: string) => string };

/** What the box holds after typing `keys` one at a time (each keystroke formats the whole box). */
function type(AsYouType: Formatter, country: string | undefined, keys: string): string[] {
  const seen: string[] = [];
  let box = '';
  for (const key of keys) {
    box = new AsYouType(country).input(box + key);
    seen.push(box);
  }
  return seen;
}

describe('web: the phone formatter', () => {
  let Built: Formatter;
  before(async () => {
    const manifest = join(projectRoot, 'web', 'dist', '.vite', 'manifest.json');
    assert.ok(existsSync(manifest), 'web/dist is not built: npm run build:web');
    const chunks = Object.values(JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, { file: string; src?: string; imports?: string[] }>);
    const chunk = chunks.find((c) => c.src === 'src/ui/as-you-type.ts');
    assert.ok(chunk, 'the formatter is a chunk of its own');
    assert.deepEqual(chunk.imports ?? [], [], 'the formatter chunk stands alone');
    Built = ((await import(pathToFileURL(join(projectRoot, 'web', 'dist', chunk.file)).href)) as { AsYouType: Formatter }).AsYouType;
  });

  it('formats a UK and a US phone as typed', () => {
    for (const AsYouType of [Exported as Formatter, Built]) {
      assert.equal(type(AsYouType, 'GB', '07400123456').at(-1), '07400 123456');
      assert.equal(type(AsYouType, 'US', '2015550123').at(-1), '(201) 555-0123');
      assert.equal(type(AsYouType, 'GB', '+12015550123').at(-1), '+1 201 555 0123');
      assert.equal(type(AsYouType, undefined, '+447400123456').at(-1), '+44 7400 123456');
    }
  });

  it('types every country’s example number, national and with +, as the exported build does', () => {
    const countries = Object.entries(examples as Record<string, string>);
    assert.ok(countries.length > 200, 'examples for every country');
    for (const [country, national] of countries) {
      const code = (metadata as unknown as { countries: Record<string, [string]> }).countries[country]![0];
      assert.deepEqual(type(Built, country, national), type(Exported as Formatter, country, national), `${country} ${national}`);
      const international = `+${code}${national}`;
      assert.deepEqual(type(Built, undefined, international), type(Exported as Formatter, undefined, international), international);
    }
  });
});
