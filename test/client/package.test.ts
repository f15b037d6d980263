// The client as an outside project gets it: `npm pack` in client/ (which builds it), the tarball
// installed into a fresh temporary project without the network, and docs/first-app.md's code run
// there verbatim against a started server, after TypeScript checked it against the shipped .d.ts.
// `require` of both entry points works too (Node loads ES modules from require since 20.19).
// docs/join.md's recipe runs there too; @vid/react packs the same way (against the client's
// declarations) and installs beside it.
import { freePort } from '../helpers/ports.js';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { projectRoot } from '../../src/platform/paths.js';
import { testConfig } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';

const run = promisify(execFile);

const npm = (args: string[], cwd: string) => run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, maxBuffer: 16 * 1024 * 1024 });

/** The first ```ts block of docs/first-app.md: the page's program, exactly as a reader copies it. */
export function firstAppCode(): string {
  const page = readFileSync(join(projectRoot, 'docs/first-app.md'), 'utf8');
  const code = /```ts\n([\s\S]*?)```/.exec(page)?.[1];
  if (!code) throw new Error('docs/first-app.md has no ```ts block');
  return code;
}

/** The first ```ts block of docs/join.md: the join recipe with the client. */
export function joinRecipeCode(): string {
  const page = readFileSync(join(projectRoot, 'docs/join.md'), 'utf8');
  const code = /```ts\n([\s\S]*?)```/.exec(page)?.[1];
  if (!code) throw new Error('docs/join.md has no ```ts block');
  return code;
}

/** The first ```tsx block of react/README.md: the binding's example as a reader copies it. */
function readmeExample(): string {
  const readme = readFileSync(join(projectRoot, 'react/README.md'), 'utf8');
  const code = /```tsx\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!code) throw new Error('react/README.md has no ```tsx block');
  return code;
}

const backend = backends.find((candidate) => !candidate.skip) ?? backends[0]!;

describe(`@vid/client packed, installed and run as docs/first-app.md says [${backend.name}]`, { skip: backend.skip }, () => {
  let project: string;
  let packs: string;
  let origin: string;
  let close: () => Promise<void>;

  before(async () => {
    packs = mkdtempSync(join(tmpdir(), 'vid-pack-'));
    project = mkdtempSync(join(tmpdir(), 'vid-first-app-'));
    const database = await backend.open();
    const port = await freePort();
    origin = `http://localhost:${port}`;
    const { app } = await buildApp({ config: testConfig(database.databaseUrl, { PUBLIC_ORIGIN: origin }), store: database.store, logger: false });
    await app.listen({ host: 'localhost', port });
    close = async () => {
      await app.close();
      await database.cleanup();
      rmSync(packs, { recursive: true, force: true });
      rmSync(project, { recursive: true, force: true });
    };
  });
  after(() => close());

  it('packs (building first), installs offline into a fresh project, type-checks and runs the page\'s code', async () => {
    await npm(['pack', '--pack-destination', packs], join(projectRoot, 'client'));
    const tarball = readdirSync(packs).find((name) => name.endsWith('.tgz'));
    assert.equal(tarball, 'vid-client-0.1.0.tgz');

    // A fresh project, as the page sets one up; the package has no dependencies to fetch.
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-vid-app', version: '1.0.0', private: true, type: 'module' }));
    await npm(['install', '--offline', join(packs, tarball!)], project);
    const installed = JSON.parse(readFileSync(join(project, 'node_modules/@vid/client/package.json'), 'utf8')) as { dependencies?: object; files: string[] };
    assert.equal(installed.dependencies, undefined, 'no runtime dependencies');
    assert.ok(readdirSync(join(project, 'node_modules/@vid/client/dist/testing')).includes('index.d.ts'));

    writeFileSync(join(project, 'app.ts'), firstAppCode());
    // TypeScript reads the installed package's own declarations, through its export conditions.
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: false, types: ['node'], typeRoots: [join(projectRoot, 'node_modules/@types')] },
        files: ['app.ts'],
      }),
    );
    const tsc = await run(process.execPath, [join(projectRoot, 'node_modules/typescript/bin/tsc'), '-p', project]).catch((error: { stdout: string }) => error);
    assert.equal(tsc.stdout, '', 'app.ts type-checks against the installed package');

    const { code, output } = await runApp(project, origin);
    assert.equal(code, 0, output);
    assert.match(output, /^Ada added \+442079460958$/m);
    assert.match(output, /^Ben follows ada\w+ \(active\)$/m);
    assert.match(output, /^Ben sees ada\w+ \+442079460958$/m);
    assert.match(output, /^Ben sees ada\w+ \+442079460959$/m, 'the live list showed the new number');
    assert.match(output, /^Refused: birthday_invalid_date$/m);

    // CommonJS callers: require() of both entry points (the `default` condition, Node's require(esm)).
    writeFileSync(
      join(project, 'check.cjs'),
      "const client = require('@vid/client'); const testing = require('@vid/client/testing');\n" +
        "console.log(typeof client.createVidClient, typeof client.isProblem, typeof testing.softwareAuthenticator);\n",
    );
    const required = await run(process.execPath, ['check.cjs'], { cwd: project });
    assert.equal(required.stdout.trim(), 'function function function');
  });

  it('runs docs/join.md\'s recipe: a new device asks with the 6-digit code, the trusted device approves', async () => {
    // The project the first test made, with the client's tarball installed.
    writeFileSync(join(project, 'join.ts'), joinRecipeCode());
    writeFileSync(
      join(project, 'tsconfig.join.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: false, types: ['node'], typeRoots: [join(projectRoot, 'node_modules/@types')] },
        files: ['join.ts'],
      }),
    );
    const tsc = await run(process.execPath, [join(projectRoot, 'node_modules/typescript/bin/tsc'), '-p', join(project, 'tsconfig.join.json')]).catch((error: { stdout: string }) => error);
    assert.equal(tsc.stdout, '', 'join.ts type-checks against the installed package');

    const { code, output } = await runApp(project, origin, 'join.ts');
    assert.equal(code, 0, output);
    assert.match(output, /^The phone shows a 6-digit code until \d\d:\d\d:\d\d$/m);
    assert.match(output, /^A mistyped code is refused: join_code_invalid$/m);
    assert.match(output, /^The laptop asks to join: awaiting_approval$/m);
    assert.match(output, /^The phone sees a request from .+$/m);
    assert.match(output, /^The laptop is signed in as the same account: true \(trusted: false\)$/m);
  });

  it('@vid/react packs against the client, installs beside it and type-checks its README\'s example', async () => {
    // Its build reads the client's declarations (client/dist, which the client's pack built).
    await npm(['pack', '--pack-destination', packs], join(projectRoot, 'react'));
    assert.ok(readdirSync(packs).includes('vid-react-0.1.0.tgz'));
    // React as its peer: from the npm cache when it holds React's metadata, else from the registry
    // (a cache filled by `npm ci` holds the tarballs of the lockfile, not always every package's metadata).
    await npm(['install', '--prefer-offline', join(packs, 'vid-react-0.1.0.tgz'), 'react@^19', 'react-dom@^19', '@types/react@^19', '@types/react-dom@^19'], project);
    const installed = JSON.parse(readFileSync(join(project, 'node_modules/@vid/react/package.json'), 'utf8')) as { dependencies?: object; peerDependencies: Record<string, string> };
    assert.equal(installed.dependencies, undefined, 'no runtime dependencies');
    assert.deepEqual(Object.keys(installed.peerDependencies).sort(), ['@vid/client', 'react']);

    writeFileSync(join(project, 'contacts.tsx'), readmeExample());
    writeFileSync(
      join(project, 'tsconfig.react.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', jsx: 'react-jsx', lib: ['ES2023', 'DOM'], strict: true, noEmit: true, skipLibCheck: false, types: [] },
        files: ['contacts.tsx'],
      }),
    );
    const tsc = await run(process.execPath, [join(projectRoot, 'node_modules/typescript/bin/tsc'), '-p', join(project, 'tsconfig.react.json')]).catch((error: { stdout: string }) => error);
    assert.equal(tsc.stdout, '', 'the README example type-checks against the installed packages');

    writeFileSync(join(project, 'check-react.cjs'), "const r = require('@vid/react'); console.log(typeof r.VidProvider, typeof r.useContacts);\n");
    const required = await run(process.execPath, ['check-react.cjs'], { cwd: project });
    assert.equal(required.stdout.trim(), 'function function');
  });
});

/** `npx tsx app.ts` in the project (tsx from this checkout: the project installs nothing else offline). */
function runApp(cwd: string, origin: string, file = 'app.ts'): Promise<{ code: number | null; output: string }> {
  const tsx = import.meta.resolve('tsx');
  const child = spawn(process.execPath, ['--import', tsx, file], { cwd, env: { ...process.env, VID_ORIGIN: origin }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const timer = setTimeout(() => child.kill(), 60_000);
  return new Promise((resolve) => child.once('exit', (code) => (clearTimeout(timer), resolve({ code, output }))));
}
