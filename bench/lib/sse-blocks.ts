// Reading a live SSE stream (the service's GET /events/stream, WHATWG HTML §9.2): the blocks
// between blank lines, the opening one (the service's `retry:`) told once, and each signal's
// event name with the block it came in. Shared by the signal scenarios' clients and the day player.
import type { IncomingMessage } from 'node:http';

export function readSseBlocks(response: IncomingMessage, on: { opened(): void; signal(kind: string, block: string): void }): void {
  response.setEncoding('utf8');
  let buffer = '';
  let opened = false;
  response.on('data', (chunk: string) => {
    buffer += chunk;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!opened && block.startsWith('retry:')) {
        opened = true;
        on.opened();
      }
      const kind = /(?:^|\n)event: (.+)/.exec(block)?.[1];
      if (kind) on.signal(kind, block);
    }
  });
  response.on('error', () => {});
}
