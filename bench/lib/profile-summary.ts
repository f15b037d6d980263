// Summarises a V8 CPU profile (node --cpu-prof): self time by function and by module (a package
// under node_modules, a file of the service, node's internals, GC), in percent of the busy time.
// Usage: tsx bench/lib/profile-summary.ts <file.cpuprofile> [top] [last seconds] [function names for inclusive time...]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Sampled milliseconds, idle excluded. */
  busyMs: number;
  idleMs: number;
  modules: Array<[string, number]>;
  functions: Array<[string, number]>;
  /** Inclusive time of chosen frames (by function name), percent of busy. */
  inclusive: Array<[string, number]>;
}

function moduleOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 14).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const src = url.indexOf('/dist/src/');
  if (src >= 0) return `vid:${url.slice(src + 10)}`;
  const own = url.indexOf('/src/');
  if (own >= 0) return `vid:${url.slice(own + 5)}`;
  return url.replace(/^file:\/\//, '');
}

/** `lastMs`: only the samples of the profile's last milliseconds (the load, not the start-up). */
export function summarise(profile: Profile, top = 15, inclusiveOf: string[] = [], lastMs = Infinity): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  const total = profile.timeDeltas.reduce((sum, d) => sum + d, 0);
  let at = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (total - at > lastMs * 1000) continue;
    self.set(profile.samples[i]!, (self.get(profile.samples[i]!) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  let busy = 0;
  let idle = 0;
  const modules = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, micros] of self) {
    const node = byId.get(id)!;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      idle += micros;
      continue;
    }
    busy += micros;
    const module = moduleOf(url, functionName);
    modules.set(module, (modules.get(module) ?? 0) + micros);
    const fn = `${functionName || '(anonymous)'} ${module}${url ? `:${lineNumber + 1}` : ''}`;
    functions.set(fn, (functions.get(fn) ?? 0) + micros);
  }
  // Inclusive time: a sample counts once for a frame name if the frame is anywhere on its stack.
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inclusive = new Map<string, number>(inclusiveOf.map((name) => [name, 0]));
  if (inclusiveOf.length) {
    for (const [id, micros] of self) {
      if (byId.get(id)!.callFrame.functionName === '(idle)') continue;
      const seen = new Set<string>();
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const name = byId.get(at)!.callFrame.functionName;
        if (inclusive.has(name) && !seen.has(name)) {
          seen.add(name);
          inclusive.set(name, inclusive.get(name)! + micros);
        }
      }
    }
  }
  const pct = (entries: Map<string, number>, n: number) =>
    [...entries].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => [k, (v / busy) * 100] as [string, number]);
  return { busyMs: busy / 1000, idleMs: idle / 1000, modules: pct(modules, top), functions: pct(functions, top), inclusive: pct(inclusive, inclusiveOf.length) };
}

export function formatSummary(summary: ProfileSummary): string {
  const lines = [`busy ${summary.busyMs.toFixed(0)} ms, idle ${summary.idleMs.toFixed(0)} ms`, '', 'self time by module:'];
  for (const [name, p] of summary.modules) lines.push(`  ${p.toFixed(1).padStart(5)}%  ${name}`);
  lines.push('', 'self time by function:');
  for (const [name, p] of summary.functions) lines.push(`  ${p.toFixed(1).padStart(5)}%  ${name}`);
  if (summary.inclusive.length) {
    lines.push('', 'inclusive time:');
    for (const [name, p] of summary.inclusive) lines.push(`  ${p.toFixed(1).padStart(5)}%  ${name}`);
  }
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [file, top, last, ...names] = process.argv.slice(2);
  if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top] [last seconds] [function names for inclusive time...]');
  const lastMs = last && last !== 'all' ? Number(last) * 1000 : Infinity;
  console.log(formatSummary(summarise(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(top ?? 25), names, lastMs)));
}
