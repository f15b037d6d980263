// ARCHITECTURE "A layout that shows it": the platform never imports a module; inside a module,
// routes → service → queries and never back; services never see Fastify; SQL stays in
// queries.ts (and migrations); modules depend on each other without a cycle.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { projectRoot } from '../../src/platform/paths.js';

const SRC = join(projectRoot, 'src');

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

interface Import {
  specifier: string;
  /** The file it names, for a relative import. */
  target?: string;
  typeOnly: boolean;
}

const IMPORT = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'"`;]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const found: Import[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[3] ?? match[4]!;
    const target = specifier.startsWith('.') ? resolve(dirname(file), specifier).replace(/\.js$/, '.ts') : undefined;
    found.push({ specifier, target: target && existsSync(target) ? target : target, typeOnly: !!match[2] });
  }
  return found;
}

const files = sources(SRC);
const rel = (file: string) => relative(SRC, file).split(sep).join('/');
const moduleOf = (file: string) => /^modules\/([^/]+)\//.exec(rel(file))?.[1];

describe('source layout', () => {
  it('finds the sources and resolves every relative import', () => {
    assert.ok(files.length > 50);
    for (const file of files) {
      for (const imp of importsOf(file)) if (imp.target) assert.ok(existsSync(imp.target), `${rel(file)} imports ${imp.specifier}, which does not exist`);
    }
  });

  it('the platform never imports a module', () => {
    const offenders = files
      .filter((file) => rel(file).startsWith('platform/'))
      .flatMap((file) => importsOf(file).filter((imp) => imp.target && rel(imp.target).startsWith('modules/')).map((imp) => `${rel(file)} → ${rel(imp.target!)}`));
    assert.deepEqual(offenders, []);
  });

  it('services, queries and the rest of a module never see Fastify; only routes do', () => {
    const offenders = files
      .filter((file) => rel(file).startsWith('modules/') && !/(^|[-/])routes\.ts$/.test(rel(file)))
      .flatMap((file) => importsOf(file).filter((imp) => imp.specifier === 'fastify' || imp.specifier.startsWith('@fastify/')).map(() => rel(file)));
    assert.deepEqual(offenders, []);
  });

  it('SQL lives in queries.ts (its hot statements in statements.ts, decision 340) and migrations: nothing else in a module builds queries with Kysely', () => {
    const offenders = files
      .filter((file) => rel(file).startsWith('modules/') && !/(queries\.ts|\/statements\.ts|\/migrations\/.*)$/.test(rel(file)))
      .flatMap((file) => importsOf(file).filter((imp) => imp.specifier === 'kysely' && !imp.typeOnly).map(() => rel(file)));
    assert.deepEqual(offenders, []);
  });

  it('inside a module, routes → service → queries → tables, never back', () => {
    const layer = (file: string) => {
      const name = rel(file).split('/').pop()!;
      if (/routes\.ts$/.test(name)) return 3;
      // A module's hot statements (decision 340) are its queries too.
      if (name === 'queries.ts' || name === 'statements.ts') return 1;
      // A module's tables (their row shapes) sit below its queries: what every layer may name.
      if (name === 'tables.ts') return 0;
      if (name === 'module.ts' || name === 'index.ts') return 4;
      return 2;
    };
    const offenders = files
      .filter((file) => moduleOf(file))
      .flatMap((file) =>
        importsOf(file)
          .filter((imp) => imp.target && moduleOf(imp.target) === moduleOf(file) && layer(imp.target) > layer(file))
          .map((imp) => `${rel(file)} → ${rel(imp.target!)}`),
      );
    assert.deepEqual(offenders, []);
  });

  it('modules meet through service interfaces: a value imported from another module comes from its service.ts or its schemas.ts', () => {
    // Types may name another module's records (a query joining its table); values may not reach
    // past its service (functions, hooks) or its schemas (the contract's shared components).
    const PUBLIC = /\/(service|schemas)\.ts$/;
    const offenders = files
      .filter((file) => moduleOf(file))
      .flatMap((file) =>
        importsOf(file)
          .filter((imp) => !imp.typeOnly && imp.target && moduleOf(imp.target) && moduleOf(imp.target) !== moduleOf(file) && !PUBLIC.test(rel(imp.target)))
          .map((imp) => `${rel(file)} → ${rel(imp.target!)}`),
      );
    assert.deepEqual(offenders, []);
  });

  it('no module imports another module\'s SQL or routes, not even a type: a joined table\'s rows are named from its tables.ts', () => {
    const INTERNAL = /\/(queries|[a-z-]*routes)\.ts$/;
    const offenders = files
      .filter((file) => moduleOf(file))
      .flatMap((file) =>
        importsOf(file)
          .filter((imp) => imp.target && moduleOf(imp.target) && moduleOf(imp.target) !== moduleOf(file) && INTERNAL.test(rel(imp.target)))
          .map((imp) => `${rel(file)} → ${rel(imp.target!)}`),
      );
    assert.deepEqual(offenders, []);
  });

  it('modules depend on each other without a cycle, and only on what their module.ts is built after', () => {
    const edges = new Map<string, Set<string>>();
    for (const file of files) {
      const from = moduleOf(file);
      if (!from) continue;
      for (const imp of importsOf(file)) {
        const to = imp.target && moduleOf(imp.target);
        if (to && to !== from) {
          if (!edges.has(from)) edges.set(from, new Set());
          edges.get(from)!.add(to);
        }
      }
    }
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (name: string, path: string[]): void => {
      if (state.get(name) === 'done') return;
      assert.notEqual(state.get(name), 'visiting', `module cycle: ${[...path, name].join(' → ')}`);
      state.set(name, 'visiting');
      for (const next of edges.get(name) ?? []) visit(next, [...path, name]);
      state.set(name, 'done');
    };
    for (const name of edges.keys()) visit(name, []);

    // The list in modules/index.ts is the build order: a module is listed after those it uses.
    const index = readFileSync(join(SRC, 'modules', 'index.ts'), 'utf8');
    const folderOf = new Map([...index.matchAll(/import \{ (\w+) \} from '\.\/([^/]+)\/module\.js'/g)].map((m) => [m[1]!, m[2]!]));
    const listed = /export const modules[^=]*=\s*\[([^\]]*)\]/.exec(index)![1]!.split(',').map((n) => n.trim()).filter(Boolean);
    const order = listed.map((name) => folderOf.get(name)!);
    assert.equal(order.length, new Set(order).size);
    for (const [from, targets] of edges) {
      for (const to of targets) assert.ok(order.indexOf(to) < order.indexOf(from), `${from} uses ${to} but is listed before it in modules/index.ts`);
    }
  });
});
