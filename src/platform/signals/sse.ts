import type { ServerResponse } from 'node:http';
import type { CloseReason, StreamSink } from './hub.js';
import type { Signal } from './catalogue.js';

/** The client's reconnect delay hint (`retry:`), in milliseconds. */
export const SSE_RETRY_MS = 2000;

/**
 * Server-Sent Events (WHATWG HTML §9.2) on a raw response. Headers keep proxies from buffering
 * or transforming the stream; the first block sets the client's reconnect delay and, with an
 * `id` and no data, its Last-Event-ID, so even a stream that has delivered nothing resumes
 * where it started.
 */
export function sseHeaders(extra: Record<string, string | number | string[] | undefined>): Record<string, string | number | string[]> {
  const headers: Record<string, string | number | string[]> = {};
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) headers[name] = value;
  return {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
  };
}

export function sseOpening(cursor: string): string {
  return `retry: ${SSE_RETRY_MS}\nid: ${cursor}\n\n`;
}

export function sseEvent(signal: Signal): string {
  // Neither the cursor, the kind nor JSON text contains a line break, so one line each.
  return `id: ${signal.id}\nevent: ${signal.kind}\ndata: ${JSON.stringify(signal)}\n\n`;
}

export function sseSink(res: ServerResponse): StreamSink {
  return {
    send: (signal) => {
      res.write(sseEvent(signal));
    },
    heartbeat: () => {
      res.write(': heartbeat\n\n');
    },
    buffered: () => res.writableLength,
    onDrain: (listener) => {
      res.once('drain', listener);
    },
    close: (reason: CloseReason) => {
      // A slow consumer's unsent bytes are dropped with the connection: that is the point.
      if (reason === 'slow_consumer') res.destroy();
      else res.end(`: closed ${reason}\n\n`);
    },
  };
}
