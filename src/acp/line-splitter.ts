/**
 * NDJSON framing for stdin: bytes in, whole lines out, each at most a fixed number of bytes.
 * A line over the limit is not kept: its bytes are dropped as they arrive (memory stays bounded)
 * and it is reported once, at its end, with its first bytes so that its id can be read.
 * Pure bookkeeping, no I/O.
 */
import { StringDecoder } from 'node:string_decoder';

/** What {@link LineSplitter.push} found. */
export type SplitLine =
  | {
      kind: 'line';
      /** The line decoded as UTF-8 (invalid bytes become U+FFFD). */
      text: string;
      /** Its length in bytes (without the line feed). */
      bytes: number;
    }
  | {
      kind: 'oversized';
      /** The line's length in bytes (without the line feed). */
      bytes: number;
      /** The line's beginning (its first {@link PEEK_BYTES} bytes, decoded), to read its id from. */
      head: string;
    };

/** How much of an oversized line is kept to read its id and routing key from, in bytes. */
export const PEEK_BYTES = 64 * 1024;

/**
 * Splits a byte stream at `\n` (a `\r` before it is left in the line; JSON ignores it). Bytes are
 * decoded as they arrive, so a long line is held once as text, not also as bytes and their join.
 */
export class LineSplitter {
  private parts: string[] = [];
  private readonly decoder = new StringDecoder('utf8');
  private size = 0;
  /** Set while the current line is over the limit: its length so far and its kept head. */
  private over: { bytes: number; head: string } | undefined;

  /** @param maxLineBytes - the longest line passed on whole, in bytes (line feed not counted). */
  constructor(private readonly maxLineBytes: number) {}

  /** Feed the next bytes; returns the lines they completed, in order. */
  push(chunk: Uint8Array): SplitLine[] {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const out: SplitLine[] = [];
    let from = 0;
    for (;;) {
      const newline = bytes.indexOf(0x0a, from);
      const end = newline === -1 ? bytes.length : newline;
      this.take(bytes.subarray(from, end));
      if (newline === -1) return out;
      const line = this.finish();
      if (line) out.push(line);
      from = newline + 1;
    }
  }

  /** End of input: the last line when it had no line feed. */
  end(): SplitLine | undefined {
    return this.finish();
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.over) {
      this.over.bytes += piece.length;
      return;
    }
    if (this.size + piece.length > this.maxLineBytes) {
      const kept = this.parts.join('') + this.decoder.write(piece.subarray(0, Math.max(0, PEEK_BYTES - this.size)));
      this.decoder.end();
      this.over = { bytes: this.size + piece.length, head: kept.slice(0, PEEK_BYTES) };
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(this.decoder.write(piece));
    this.size += piece.length;
  }

  private finish(): SplitLine | undefined {
    if (this.over) {
      const over = this.over;
      this.over = undefined;
      return { kind: 'oversized', bytes: over.bytes, head: over.head };
    }
    if (this.size === 0) return undefined;
    this.parts.push(this.decoder.end());
    const text = this.parts.length === 1 ? this.parts[0]! : this.parts.join('');
    const line = { kind: 'line' as const, text, bytes: this.size };
    this.parts = [];
    this.size = 0;
    return line;
  }
}

/**
 * The top-level `id` and `sessionId` (stdio Bus routing key) of a JSON object whose text starts
 * with `head`, read without parsing the rest: a scan that tracks strings and nesting and stops at
 * the end of `head`. Only string and number values are read (a valid JSON-RPC id).
 */
export function peekIds(head: string): { id?: string | number; sessionId?: string | number } {
  const found: { id?: string | number; sessionId?: string | number } = {};
  let depth = 0;
  let i = 0;
  let expectKey = false;
  const skipSpace = () => {
    while (i < head.length && /\s/.test(head[i]!)) i++;
  };
  const readString = (): string | undefined => {
    const start = i;
    for (i++; i < head.length; i++) {
      const c = head[i];
      if (c === '\\') i++;
      else if (c === '"') {
        i++;
        try {
          return JSON.parse(head.slice(start, i)) as string;
        } catch {
          return undefined;
        }
      }
    }
    return undefined;
  };
  while (i < head.length) {
    const c = head[i]!;
    if (c === '"') {
      const text = readString();
      if (text === undefined) return found;
      if (depth === 1 && expectKey && (text === 'id' || text === 'sessionId')) {
        skipSpace();
        if (head[i] !== ':') continue;
        i++;
        skipSpace();
        let value: string | number | undefined;
        if (head[i] === '"') value = readString();
        else {
          const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(head.slice(i, i + 40));
          if (number && i + number[0].length < head.length) value = Number(number[0]);
        }
        if (value !== undefined && (typeof value === 'string' || Number.isFinite(value))) found[text] = value;
      }
      expectKey = false;
      continue;
    }
    if (c === '{') {
      depth++;
      expectKey = depth === 1;
    } else if (c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (c === ',' && depth === 1) expectKey = true;
    i++;
  }
  return found;
}
