/**
 * Newline-delimited JSON framing (one JSON value per line, `\n` or `\r\n` between them), as
 * Ollama's native API streams its answers (`application/x-ndjson`:
 * https://github.com/ollama/ollama/blob/main/docs/api/streaming.mdx). Bytes in, lines out; the
 * lines are not parsed here. Pure, incremental and linear in the input.
 */
import { describeBytes } from '../shared/describe-bytes.js';

/** Thrown by {@link LineFramer.push} when one line is over `maxLineBytes`. */
export class LineTooLargeError extends Error {
  constructor(readonly maxLineBytes: number) {
    super(`one line of the stream is larger than the ${describeBytes(maxLineBytes)} limit, so the stream was abandoned`);
    this.name = 'LineTooLargeError';
  }
}

/**
 * The stream broke in a way a reader of it noticed (a line that is not JSON, an end without the
 * final line). The chat client reports it as a broken stream (`ProviderStreamError`).
 */
export class StreamBrokenError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'StreamBrokenError';
  }
}

/** Incremental line splitter: bytes (split anywhere, even inside a UTF-8 character) in, complete lines out. */
export interface LineFramer {
  /**
   * @returns the lines those bytes completed, without their line ending, blank lines left out.
   * @throws {LineTooLargeError} as soon as the line being received is over the limit.
   */
  push(bytes: Uint8Array): string[];
  /** End of body: the last line when it had no line ending (blank: none). */
  end(): string[];
}

/**
 * A {@link LineFramer}. Invalid UTF-8 becomes U+FFFD (the line then fails to parse as JSON
 * where it matters, rather than here).
 * @param maxLineBytes - longest line, in bytes. @defaultValue no limit
 */
export function createLineFramer(maxLineBytes = Infinity): LineFramer {
  const text = new TextDecoder('utf-8', { fatal: false });
  let partial = '';
  /** Bytes of the line being received. */
  let pending = 0;
  const split = (chunk: string): string[] => {
    const lines: string[] = [];
    let start = 0;
    for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
      const line = (start === 0 ? partial + chunk.slice(0, end) : chunk.slice(start, end)).trim();
      if (start === 0) partial = '';
      if (line.length > 0) lines.push(line);
      start = end + 1;
    }
    partial = start === 0 ? partial + chunk : chunk.slice(start);
    return lines;
  };
  return {
    push(bytes: Uint8Array): string[] {
      const lineEnd = bytes.lastIndexOf(0x0a);
      pending = lineEnd === -1 ? pending + bytes.length : bytes.length - 1 - lineEnd;
      if (pending > maxLineBytes) throw new LineTooLargeError(maxLineBytes);
      return split(text.decode(bytes, { stream: true }));
    },
    end(): string[] {
      const lines = split(text.decode());
      const last = partial.trim();
      partial = '';
      if (last.length > 0) lines.push(last);
      return lines;
    },
  };
}
