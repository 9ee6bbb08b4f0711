/**
 * NDJSON framing for stdin: bytes in, whole lines out, each at most a fixed number of bytes.
 * A line over the limit is not kept: its bytes are dropped as they arrive (memory stays bounded)
 * and it is reported once, at its end, with its first bytes so that its id can be read.
 * Pure bookkeeping, no I/O.
 */

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

/**
 * How much of an oversized line is kept to read its id and routing key from, in bytes.
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const PEEK_BYTES = 64 * 1024;

/**
 * Splits a byte stream at `\n` (a `\r` before it is left in the line; JSON ignores it).
 *
 * Memory and speed: a line that arrives in many reads keeps its reads' bytes (buffers outside V8's
 * heap, never small strings that V8 would copy from the young generation to the old one) and is
 * joined into one buffer once, at its end, then decoded once, whole: the line costs its bytes
 * twice for a moment, plus its text, and the bytes are released right after. Joining once touches
 * each byte once; a buffer grown by doubling as the reads came touched about twice the line in
 * fresh memory, and fresh pages cost more than the copy on small VMs (a 50 MB line on a 2-core VM:
 * ~600 ms of copying that way, about half once). A line that fits in one chunk is decoded from that chunk without a copy.
 */
export class LineSplitter {
  /** The current line's bytes so far, in the order they came (views into the reads). */
  private pieces: Buffer[] = [];
  private size = 0;
  /** Set while the current line is over the limit: its length so far and its kept head. */
  private over: { bytes: number; head: string } | undefined;

  /** @param maxLineBytes - the longest line passed on whole, in bytes (line feed not counted). */
  constructor(private readonly maxLineBytes: number) {}

  /**
   * Feed the next bytes; returns the lines they completed, in order. The splitter keeps views into
   * `chunk` until its line ends: the caller must not change a chunk's bytes after pushing it
   * (Node's stdin gives a fresh buffer per read).
   */
  push(chunk: Uint8Array): SplitLine[] {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const out: SplitLine[] = [];
    let from = 0;
    for (;;) {
      const newline = bytes.indexOf(0x0a, from);
      const end = newline === -1 ? bytes.length : newline;
      if (newline !== -1 && this.size === 0 && !this.over) {
        // The whole line is in this chunk: decode it in place.
        if (end - from > this.maxLineBytes)
          out.push({ kind: 'oversized', bytes: end - from, head: bytes.toString('utf8', from, Math.min(end, from + PEEK_BYTES)) });
        else if (end > from) out.push({ kind: 'line', text: bytes.toString('utf8', from, end), bytes: end - from });
      } else {
        this.take(bytes.subarray(from, end));
        if (newline !== -1) {
          const line = this.finish();
          if (line) out.push(line);
        }
      }
      if (newline === -1) return out;
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
    const size = this.size + piece.length;
    if (size > this.maxLineBytes) {
      // Only the head is kept; a cut UTF-8 sequence at its end decodes as U+FFFD: harmless for reading ids.
      const head = Buffer.concat([...this.pieces, piece], Math.min(size, PEEK_BYTES));
      this.over = { bytes: size, head: head.toString('utf8') };
      this.rest();
      return;
    }
    this.pieces.push(piece);
    this.size = size;
  }

  /** Back to an empty line (its bytes let go of). */
  private rest(): void {
    this.pieces = [];
    this.size = 0;
  }

  private finish(): SplitLine | undefined {
    if (this.over) {
      const over = this.over;
      this.over = undefined;
      return { kind: 'oversized', bytes: over.bytes, head: over.head };
    }
    if (this.size === 0) return undefined;
    const bytes = this.size;
    const whole = this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces, bytes);
    this.rest();
    return { kind: 'line', text: whole.toString('utf8'), bytes };
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
