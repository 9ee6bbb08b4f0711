/**
 * The WebSocket frames a client sends, read as they arrive, before the `ws` library sees them
 * (pure, no timers): a text message nested deeper than the limit (`json-depth.ts`) is refused at
 * its first bracket past it, and its frames are never handed on, so `ws` never gathers, unmasks or
 * copies its megabytes and nothing parses it; the rest of it is dropped as it comes. Every other
 * byte goes on unchanged: a text message is handed on once its last frame has passed the check
 * (`ws` would hold it whole until then too), binary and control frames at once. Anything that is
 * not a well-formed masked client frame within the size limit is handed on untouched from there
 * on, for `ws` to refuse as it does (close 1002 or 1009); a message in more than
 * {@link MAX_FRAGMENTS} frames ends the reading (the guard closes the socket).
 *
 * Source: RFC 6455 §5.2 (base framing: FIN, RSV1-3, opcode, MASK, payload length 7/16/64 bits,
 * masking key), §5.3 (client-to-server masking), §5.4 (fragmentation: control frames may come
 * between the fragments of a message), §5.5 (control frames: at most 125 bytes, never fragmented).
 */
import { DepthScanner } from './json-depth.js';

const TEXT = 0x1;
const BINARY = 0x2;
const CONTINUATION = 0x0;

/** What becomes of one frame's bytes. */
type Fate = 'hold' | 'pass' | 'drop';

interface Frame {
  fin: boolean;
  opcode: number;
  mask: Uint8Array;
  /** Payload bytes still to come. */
  left: number;
  /** Payload bytes read so far (the masking key's position). */
  offset: number;
  fate: Fate;
}

interface Message {
  text: boolean;
  scanner: DepthScanner;
  /** The frames' bytes held back until the message has passed. */
  held: Uint8Array[];
  /** Payload bytes of its frames so far (as `ws` counts a message against `maxPayload`: headers not included). */
  payloadBytes: number;
  /** Its data frames so far. */
  fragments: number;
  refused: boolean;
}

/**
 * Most data frames one message may come in: the SDK's clients send one a message; thousands of
 * tiny fragments would only cost memory (each held apart until the message ends).
 */
export const MAX_FRAGMENTS = 1024;

/**
 * What to do with the bytes read: hand `pass` on to `ws` in order; `refused` text messages were too
 * deep; `fragmented`: a message came in more than {@link MAX_FRAGMENTS} frames (the socket is to be
 * closed; nothing more is read from it).
 */
export interface FrameVerdict {
  pass: Uint8Array[];
  refused: number;
  fragmented?: true;
}

/** One client's incoming frames. */
export class ClientFrames {
  private readonly header = new Uint8Array(14);
  private headerLength = 0;
  private frame: Frame | undefined;
  private message: Message | undefined;
  /** Something `ws` must judge came: everything goes on untouched from then on. */
  private untouched = false;
  /** A message came in too many frames: nothing more is read or handed on. */
  private closed = false;

  /** Whether bytes now go to `ws` unread (its own checks apply; the socket guard checks each message's depth itself). */
  get handingOn(): boolean {
    return this.untouched;
  }

  /**
   * @param maxDepth - deepest nesting of a text message's JSON.
   * @param maxPayload - largest message, in bytes (`ws`'s `maxPayload`): a longer one is handed on for `ws` to refuse.
   */
  constructor(
    private readonly maxDepth: number,
    private readonly maxPayload: number,
  ) {}

  /** Reads the next bytes from the socket. */
  push(chunk: Uint8Array): FrameVerdict {
    const verdict: FrameVerdict = { pass: [], refused: 0 };
    if (this.closed) return { ...verdict, fragmented: true };
    let at = 0;
    while (at < chunk.length && !this.untouched && !this.closed) {
      if (!this.frame) {
        at = this.readHeader(chunk, at, verdict);
        continue;
      }
      const frame = this.frame;
      const part = chunk.subarray(at, at + Math.min(frame.left, chunk.length - at));
      at += part.length;
      this.payload(frame, part, verdict);
      frame.offset += part.length;
      frame.left -= part.length;
      if (frame.left === 0) this.endFrame(frame, verdict);
    }
    if (this.closed) verdict.fragmented = true;
    else if (this.untouched && at < chunk.length) verdict.pass.push(chunk.subarray(at));
    return verdict;
  }

  /** Reads header bytes from `chunk` at `at`; starts the frame once the header is whole. Returns where reading stopped. */
  private readHeader(chunk: Uint8Array, at: number, verdict: FrameVerdict): number {
    while (at < chunk.length) {
      this.header[this.headerLength++] = chunk[at++]!;
      if (this.headerLength >= 2 && this.headerLength === this.headerSize()) {
        this.startFrame(verdict);
        break;
      }
    }
    return at;
  }

  /** The header's size as far as its first two bytes tell (2 until they are read). */
  private headerSize(): number {
    if (this.headerLength < 2) return 2;
    const length7 = this.header[1]! & 0x7f;
    return 2 + (length7 === 126 ? 2 : length7 === 127 ? 8 : 0) + (this.header[1]! & 0x80 ? 4 : 0);
  }

  private startFrame(verdict: FrameVerdict): void {
    const h = this.header;
    const size = this.headerLength;
    const header = h.slice(0, size);
    this.headerLength = 0;
    const fin = (h[0]! & 0x80) !== 0;
    const opcode = h[0]! & 0x0f;
    const masked = (h[1]! & 0x80) !== 0;
    const length7 = h[1]! & 0x7f;
    const view = new DataView(h.buffer, h.byteOffset, size);
    const length = length7 === 126 ? view.getUint16(2) : length7 === 127 ? view.getUint32(2) * 2 ** 32 + view.getUint32(6) : length7;
    const control = opcode >= 0x8;
    const known = opcode === TEXT || opcode === BINARY || opcode === CONTINUATION || opcode === 0x8 || opcode === 0x9 || opcode === 0xa;
    const inOrder = control || (opcode === CONTINUATION ? this.message !== undefined : this.message === undefined);
    const sofar = control ? 0 : (this.message?.payloadBytes ?? 0);
    if ((h[0]! & 0x70) !== 0 || !masked || !known || !inOrder || (control && (!fin || length > 125)) || sofar + length > this.maxPayload) {
      this.handOnUntouched(header, verdict);
      return;
    }
    if (!control && opcode !== CONTINUATION)
      this.message = { text: opcode === TEXT, scanner: new DepthScanner(this.maxDepth), held: [], payloadBytes: 0, fragments: 0, refused: false };
    const message = this.message;
    if (!control && message) {
      message.payloadBytes += length;
      if (++message.fragments > MAX_FRAGMENTS) {
        this.message = undefined;
        this.closed = true;
        return;
      }
    }
    const fate: Fate = control || !message?.text ? 'pass' : message.refused ? 'drop' : 'hold';
    this.frame = { fin, opcode, mask: h.slice(size - 4, size), left: length, offset: 0, fate };
    this.keep(fate, header, verdict);
    if (length === 0) this.endFrame(this.frame, verdict);
  }

  private payload(frame: Frame, part: Uint8Array, verdict: FrameVerdict): void {
    const message = this.message;
    if (frame.fate === 'hold' && message && message.scanner.push(part, frame.mask, frame.offset)) {
      // Too deep: what was held is dropped, and so is the rest of the message.
      message.refused = true;
      message.held = [];
      frame.fate = 'drop';
      verdict.refused++;
      return;
    }
    this.keep(frame.fate, part, verdict);
  }

  private keep(fate: Fate, bytes: Uint8Array, verdict: FrameVerdict): void {
    if (fate === 'pass') verdict.pass.push(bytes);
    else if (fate === 'hold' && this.message) this.message.held.push(bytes);
  }

  private endFrame(frame: Frame, verdict: FrameVerdict): void {
    this.frame = undefined;
    if (frame.opcode >= 0x8 || !frame.fin || !this.message) return;
    if (!this.message.refused) for (const bytes of this.message.held) verdict.pass.push(bytes);
    this.message = undefined;
  }

  /** From `header` on, every byte goes to `ws` as it came (what was held first). */
  private handOnUntouched(header: Uint8Array, verdict: FrameVerdict): void {
    if (this.message && !this.message.refused) for (const bytes of this.message.held) verdict.pass.push(bytes);
    verdict.pass.push(header);
    this.message = undefined;
    this.frame = undefined;
    this.untouched = true;
  }
}
