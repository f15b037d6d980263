// Child processes of the benchmark: servers pinned to core 0, the load generator to core 1 (with
// `taskset`, when the machine has it and at least two cores), their memory and CPU time read
// from /proc.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Job, JobResult } from './generator.js';

export const SERVER_CORE = 0;
export const LOAD_CORE = 1;

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Whether processes are pinned: taskset present, two cores or more, and not turned off. */
export const pinning = process.env.BENCH_NO_PIN !== '1' && availableParallelism() >= 2 && process.platform === 'linux' && hasTaskset();

/** Pins a running process (all its threads) to cores ("1", "0,1"); false when that is not possible. */
export function pin(pid: number, cores: number | string): boolean {
  if (!pinning) return false;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(cores), String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function pinned(command: string[], core: number): string[] {
  return pinning ? ['taskset', '-c', String(core), ...command] : command;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Resident memory now and at its peak (VmHWM), in bytes, from /proc; undefined off Linux. */
export function memoryOf(pid: number): { rss: number; peak: number } | undefined {
  const file = `/proc/${pid}/status`;
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? Number.NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** CPU seconds (user + system) a process has used, from /proc; undefined off Linux. */
export function cpuSecondsOf(pid: number): number | undefined {
  const file = `/proc/${pid}/stat`;
  if (!existsSync(file)) return undefined;
  const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

export class ServerProcess {
  private child!: ChildProcess;
  private output: string[] = [];
  private rssMax = 0;
  private sampler?: NodeJS.Timeout;

  constructor(
    readonly name: string,
    private readonly command: string[],
    private readonly env: Record<string, string>,
    readonly port: number,
    private readonly core = SERVER_CORE,
  ) {}

  get pid(): number {
    return this.child.pid!;
  }

  /** Starts the process and waits until `ready` resolves true (polled) or it prints READY. */
  async start(ready: () => Promise<boolean>): Promise<void> {
    const [file, ...args] = pinned(this.command, this.core);
    // A clean environment: the caller's shell (DATABASE_URL, LOG_LEVEL, ...) must not reach the servers.
    const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TMPDIR: process.env.TMPDIR ?? '' };
    this.child = spawn(file!, args, { env: { ...base, ...this.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer) => {
      this.output.push(chunk.toString());
      if (this.output.length > 200) this.output.splice(0, 100);
    };
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    const until = Date.now() + 60_000;
    for (;;) {
      if (this.child.exitCode !== null) throw new Error(`${this.name} exited (${this.child.exitCode}):\n${this.log()}`);
      if (this.output.join('').includes('READY') || (await ready().catch(() => false))) return;
      if (Date.now() > until) throw new Error(`${this.name} did not start:\n${this.log()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The rest of the first output line starting with `prefix`. */
  line(prefix: string): string | undefined {
    return this.output.join('').split('\n').find((l) => l.startsWith(prefix))?.slice(prefix.length);
  }

  log(): string {
    return this.output.join('').slice(-4000);
  }

  memory() {
    return memoryOf(this.pid);
  }

  cpuSeconds() {
    return cpuSecondsOf(this.pid);
  }

  /** Samples RSS every 100 ms until stopSampling; returns the highest value seen. */
  startSampling(): void {
    this.rssMax = 0;
    this.sampler = setInterval(() => {
      const memory = this.memory();
      if (memory && memory.rss > this.rssMax) this.rssMax = memory.rss;
    }, 100);
  }

  stopSampling(): number {
    clearInterval(this.sampler);
    const memory = this.memory();
    return Math.max(this.rssMax, memory?.rss ?? 0);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 8000))]);
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

/** The load generator process (bench/lib/generator.ts) on its own core. */
export class Generator {
  private child!: ChildProcess;
  private nextId = 1;

  async start(): Promise<void> {
    const entry = fileURLToPath(new URL('./generator.ts', import.meta.url));
    const [file, ...args] = pinned([process.execPath, '--import', 'tsx', entry], LOAD_CORE);
    this.child = spawn(file!, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await new Promise<void>((resolve, reject) => {
      this.child.once('exit', (code) => reject(new Error(`load generator exited (${code})`)));
      this.child.once('message', () => resolve());
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Runs a job; `onMark` hears when its measured window starts and ends. */
  run(job: Job, onMark?: (phase: 'start' | 'end') => void): Promise<JobResult> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onMessage = (m: { id: number; type: string; result?: JobResult; error?: string; phase?: 'start' | 'end' }) => {
        if (m.id !== id) return;
        if (m.type === 'mark') {
          onMark?.(m.phase!);
          return;
        }
        this.child.off('message', onMessage);
        if (m.type === 'result') resolve(m.result!);
        else reject(new Error(`load generator: ${m.error}`));
      };
      this.child.on('message', onMessage);
      this.child.send({ type: 'job', id, job });
    });
  }

  stop(): void {
    if (this.child.connected) this.child.send({ type: 'exit' });
  }
}
