// A Server-Sent Events parser (WHATWG HTML §9.2.6 "Event stream interpretation") for streams read
// with fetch: EventSource cannot send the Authorization and DPoP headers (STANDARDS, SSE).

/** What the parser hands back, one message per completed block or line. */
export type SseMessage =
  /** A dispatched event; `id` is the last event id after it (the resume cursor). */
  | { kind: 'event'; id: string; event: string; data: string }
  /** A block with an id but no data (our stream's opening block): the cursor moved. */
  | { kind: 'id'; id: string }
  /** `retry:` the server's reconnection delay, in milliseconds. */
  | { kind: 'retry'; ms: number }
  /** `: text`, e.g. heartbeats. */
  | { kind: 'comment'; text: string };

/** An incremental `text/event-stream` parser: push decoded text, get completed messages. */
export class SseParser {
  private buffer = '';
  private started = false;
  private afterCr = false;
  private data = '';
  private event = '';
  private idBuffer: string;
  private idSeenInBlock = false;

  /** `lastEventId`: where a resumed stream starts (Last-Event-ID sent on reconnect). */
  constructor(lastEventId = '') {
    this.idBuffer = lastEventId;
  }

  /** Feeds decoded text; answers the messages completed by it. */
  push(text: string): SseMessage[] {
    if (text === '') return [];
    // A CR ended the previous chunk: an LF starting this one belongs to the same CRLF.
    if (this.afterCr && text.startsWith('\n')) text = text.slice(1);
    this.afterCr = false;
    this.buffer += text;
    if (!this.started && this.buffer.length > 0) {
      this.started = true;
      if (this.buffer.charCodeAt(0) === 0xfeff) this.buffer = this.buffer.slice(1);
    }
    const out: SseMessage[] = [];
    // Lines end with CRLF, LF or CR.
    for (;;) {
      const match = /\r\n|\n|\r/.exec(this.buffer);
      if (!match) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      if (match[0] === '\r' && this.buffer === '') this.afterCr = true;
      this.line(line, out);
    }
    return out;
  }

  private line(line: string, out: SseMessage[]): void {
    if (line === '') return this.dispatch(out);
    if (line.startsWith(':')) {
      out.push({ kind: 'comment', text: line.slice(1).trimStart() });
      return;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data += `${value}\n`;
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) {
      this.idBuffer = value;
      this.idSeenInBlock = true;
    } else if (field === 'retry' && /^\d+$/.test(value)) out.push({ kind: 'retry', ms: Number(value) });
  }

  private dispatch(out: SseMessage[]): void {
    const idSeen = this.idSeenInBlock;
    this.idSeenInBlock = false;
    if (this.data === '') {
      this.event = '';
      if (idSeen) out.push({ kind: 'id', id: this.idBuffer });
      return;
    }
    out.push({ kind: 'event', id: this.idBuffer, event: this.event || 'message', data: this.data.slice(0, -1) });
    this.data = '';
    this.event = '';
  }
}
