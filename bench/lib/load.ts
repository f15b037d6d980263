// The load engine of the benchmark: keep-alive TCP connections, each writing one pre-serialised
// HTTP/1.1 request at a time and parsing the response itself (status line, Content-Length or
// chunked body). No HTTP client library sits between the buffers and the socket, so one core
// drives far more requests than the one-core server under test can answer (the generator's
// own CPU use is reported with every run to show it).
import { connect } from 'node:net';
import type { Socket } from 'node:net';

export interface Target {
  host: string;
  port: number;
}

export interface Response {
  status: number;
  /** The body (only kept when the script asked for it). */
  body: Buffer;
}

/**
 * What a connection sends next. `step` names the request for the statistics; `keepBody` asks for
 * the response body (flows read tokens and challenges from it). Returning null ends the connection.
 */
export interface Next {
  request: Buffer;
  step: number;
  keepBody?: boolean;
}

export type Script = (last: Response | undefined, lastStep: number) => Next | null | Promise<Next | null>;

export interface StepStats {
  ok: number;
  failed: number;
  statuses: Record<string, number>;
  /** Latencies (ms) of the counted requests, send to last byte. */
  latencies: number[];
  /** The first bodies of failed responses, for the report. */
  samples: string[];
}

export interface RunStats {
  seconds: number;
  steps: StepStats[];
  socketErrors: number;
  reconnects: number;
  /** Generator CPU use during the measured window, in percent of one core. */
  generatorCpu: number;
}

const CRLF2 = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');
const EMPTY = Buffer.alloc(0);

function newStep(): StepStats {
  return { ok: 0, failed: 0, statuses: {}, latencies: [], samples: [] };
}

/**
 * Runs `connections` scripted connections (spread round-robin over the targets, as an L4 load
 * balancer would) for warmup + duration seconds; only responses that complete inside the measured
 * window count.
 */
export async function runLoad(options: {
  targets: Target[];
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  steps: number;
  script: (connection: number) => Script;
  /** The one status that counts as success (304 for revalidations, where a 200 means a stale tag); default any 2xx. */
  expectStatus?: number;
  /** Called when the measured window starts and ends (the parent reads the server's CPU time then). */
  onWindow?: (phase: 'start' | 'end') => void;
}): Promise<RunStats> {
  const steps = Array.from({ length: options.steps }, newStep);
  let socketErrors = 0;
  let reconnects = 0;
  const start = performance.now();
  const measureFrom = start + options.warmupSeconds * 1000;
  const measureTo = measureFrom + options.durationSeconds * 1000;
  let cpuAtStart: NodeJS.CpuUsage | undefined;
  const cpuTimer = setTimeout(() => {
    cpuAtStart = process.cpuUsage();
    options.onWindow?.('start');
  }, options.warmupSeconds * 1000);
  let cpuAtEnd: NodeJS.CpuUsage | undefined;
  const endWindow = () => {
    if (cpuAtEnd) return;
    cpuAtEnd = process.cpuUsage(cpuAtStart);
    options.onWindow?.('end');
  };
  const endTimer = setTimeout(endWindow, (options.warmupSeconds + options.durationSeconds) * 1000);

  const finished: Array<Promise<void>> = [];
  const closers: Array<() => void> = [];
  for (let c = 0; c < options.connections; c++) {
    const target = options.targets[c % options.targets.length]!;
    const script = options.script(c);
    finished.push(
      new Promise<void>((resolve) => {
        let socket: Socket;
        let buffer: Buffer = EMPTY;
        let sentAt = 0;
        let current: Next | null = null;
        let done = false;
        // Parse state of the response in progress.
        let headerLength = -1;
        let status = 0;
        let contentLength = -1;
        let chunked = false;

        const finish = () => {
          if (done) return;
          done = true;
          socket.destroy();
          resolve();
        };
        closers.push(finish);

        const send = (next: Next | null) => {
          if (next === null || performance.now() >= measureTo) return finish();
          current = next;
          sentAt = performance.now();
          socket.write(next.request);
        };

        const advance = (last: Response | undefined, lastStep: number) => {
          const next = script(last, lastStep);
          if (next instanceof Promise) next.then(send, (error) => {
            console.error('load script failed:', error);
            finish();
          });
          else send(next);
        };

        const complete = (body: Buffer) => {
          const now = performance.now();
          const step = steps[current!.step]!;
          if (sentAt >= measureFrom && now <= measureTo) {
            const ok = options.expectStatus ? status === options.expectStatus : status >= 200 && status < 300;
            if (ok) {
              step.ok++;
              step.latencies.push(now - sentAt);
            } else {
              step.failed++;
              if (step.samples.length < 3) step.samples.push(`${status} ${body.toString('utf8', 0, Math.min(body.length, 300))}`);
            }
            step.statuses[status] = (step.statuses[status] ?? 0) + 1;
          }
          const last = { status, body: current!.keepBody ? Buffer.from(body) : EMPTY };
          headerLength = -1;
          advance(last, current!.step);
        };

        /** Parses as many complete responses as the buffer holds (one, without pipelining). */
        const parse = () => {
          for (;;) {
            if (headerLength < 0) {
              const end = buffer.indexOf(CRLF2);
              if (end < 0) return;
              headerLength = end + 4;
              status = (buffer[9]! - 48) * 100 + (buffer[10]! - 48) * 10 + (buffer[11]! - 48);
              const head = buffer.toString('latin1', 0, end).toLowerCase();
              const at = head.indexOf('\r\ncontent-length:');
              contentLength = at >= 0 ? parseInt(head.slice(at + 17, head.indexOf('\r\n', at + 2) >>> 0), 10) : -1;
              chunked = contentLength < 0 && head.includes('\r\ntransfer-encoding: chunked');
              if (contentLength < 0 && !chunked) contentLength = 0;
            }
            if (!chunked) {
              if (buffer.length < headerLength + contentLength) return;
              const body = buffer.subarray(headerLength, headerLength + contentLength);
              const rest = buffer.subarray(headerLength + contentLength);
              buffer = rest.length ? rest : EMPTY;
              complete(body);
              if (!buffer.length) return;
              continue;
            }
            // Chunked: walk the chunks; wait for more data until the terminating zero chunk.
            const parts: Buffer[] = [];
            let at = headerLength;
            for (;;) {
              const lineEnd = buffer.indexOf(CRLF, at);
              if (lineEnd < 0) return;
              const size = parseInt(buffer.toString('latin1', at, lineEnd), 16);
              if (size === 0) {
                if (buffer.length < lineEnd + 4) return;
                at = lineEnd + 4;
                break;
              }
              if (buffer.length < lineEnd + 2 + size + 2) return;
              parts.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
              at = lineEnd + 2 + size + 2;
            }
            const body = Buffer.concat(parts);
            const rest = buffer.subarray(at);
            buffer = rest.length ? rest : EMPTY;
            complete(body);
            if (!buffer.length) return;
          }
        };

        const open = (first: boolean) => {
          socket = connect({ host: target.host, port: target.port, noDelay: true });
          socket.on('data', (chunk: Buffer) => {
            buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
            parse();
          });
          socket.on('error', () => {
            socketErrors++;
          });
          socket.on('close', () => {
            if (done) return;
            // The server closed the connection (or it broke): reconnect and go on with a fresh request.
            buffer = EMPTY;
            headerLength = -1;
            if (performance.now() >= measureTo) return finish();
            reconnects++;
            setTimeout(() => open(false), 10);
          });
          socket.once('connect', () => {
            if (first || !current) advance(undefined, -1);
            else advance({ status: 0, body: EMPTY }, current.step);
          });
        };
        open(true);
      }),
    );
  }
  // Stop waiting for a straggler two seconds after the end.
  await Promise.race([Promise.all(finished), new Promise((resolve) => setTimeout(resolve, (options.warmupSeconds + options.durationSeconds + 2) * 1000))]);
  for (const close of closers) close();
  clearTimeout(cpuTimer);
  clearTimeout(endTimer);
  // A generator running flat out can see every connection end before its timer fires: then the
  // window ends here, so the parent still hears it and reads the server's CPU time.
  endWindow();
  const cpu = cpuAtEnd!;
  return {
    seconds: options.durationSeconds,
    steps,
    socketErrors,
    reconnects,
    generatorCpu: ((cpu.user + cpu.system) / 1000 / (options.durationSeconds * 1000)) * 100,
  };
}
