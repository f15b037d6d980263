// Writes client/src/generated/signal-kinds.ts from the signal catalogue
// (src/platform/signals/catalogue.ts), so the client's Signal type names every kind with its
// resource template. test/client/client-signal-kinds.test.ts fails when the file is out of date.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../src/platform/paths.js';
import { SIGNAL_KINDS } from '../src/platform/signals/catalogue.js';

export function signalKindsSource(): string {
  const lines = Object.entries(SIGNAL_KINDS).map(([kind, { resource, description }]) =>
    `  /** ${description.replace(/\*\//g, '* /')} */\n  ${JSON.stringify(kind)}: ${JSON.stringify(resource)},`);
  return [
    '// Generated from the signal catalogue (src/platform/signals/catalogue.ts) by',
    '// `npx tsx scripts/write-signal-kinds.ts`. Do not edit by hand.',
    '',
    '/** Each signal kind and the resource it names (a template where it names one of several). */',
    'export const SIGNAL_RESOURCES = {',
    ...lines,
    '} as const;',
    '',
  ].join('\n');
}

export const SIGNAL_KINDS_FILE = join(projectRoot, 'client', 'src', 'generated', 'signal-kinds.ts');

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(SIGNAL_KINDS_FILE, signalKindsSource());
  console.log(`wrote ${SIGNAL_KINDS_FILE}`);
}
