/**
 * The stdio transport: NDJSON (one JSON-RPC message per line) in both directions, replacing the
 * SDK's `ndJsonStream` so that no input line can stop the agent.
 *
 * What the SDK 2.x's stream does that this avoids: it answers an invalid request with the whole
 * message in `error.data` (a 20 MB request got a 20 MB answer, and a 5,000-deep one overflowed
 * the stack while serialising the answer, which closes the connection); a line over 32 MiB closes
 * the connection silently. Here every bad line is answered by this module, with a bounded answer
 * that never echoes the input, is logged at `error`, and the next line is read as usual. Good
 * lines are handed to the SDK already parsed, with the SDK's own shape rules
 * (JSON-RPC 2.0, https://www.jsonrpc.org/specification §4, §5): a request has a string `method`
 * and a string, number or null `id`; a notification has no `id`; a response has neither `method`.
 */
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk/unstable';
import type { Writable } from 'node:stream';
import type { Logger } from '../shared/log.js';
import { isRecord } from '../shared/json-value.js';
import { describeBytes } from '../shared/describe-bytes.js';
import { collectGarbage } from '../shared/collect-garbage.js';
import { LineSplitter, peekIds, type SplitLine } from './line-splitter.js';
import { lineOutput } from './line-output.js';

/**
 * Longest stdin line accepted, in bytes: 64 MiB. A prompt with embedded files or images of tens
 * of MB is plausible; the SDK's 32 MiB was too tight for that, and a longer line is better
 * refused than held (each copy of a prompt costs its size again in memory).
 */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * A line at least this long (bytes) is followed by a garbage collection when its bytes are let go
 * and again when its text is: 8 MiB, far above any ordinary message (see collect-garbage.ts).
 */
const COLLECT_AFTER_BYTES = 8 * 1024 * 1024;

/** Options of {@link ndJsonTransport}. */
export interface NdJsonTransportOptions {
  /** Longest line accepted, in bytes. @defaultValue {@link MAX_LINE_BYTES} */
  maxLineBytes?: number;
  logger?: Logger | undefined;
}

/** The message stream for the SDK, plus how the input ended. */
export interface NdJsonTransport extends Stream {
  /** Set once the input failed (a read error, not an end of file): the connection ended unexpectedly. */
  readonly failure: Error | undefined;
  /**
   * Writes one message, as writing it to `writable` does, without a WritableStream (for a wrapper
   * that has a WritableStream of its own, such as `withBusRouting`).
   */
  write(message: AnyMessage): Promise<void> | undefined;
}

type Json = Record<string, unknown>;
type Id = string | number | null;

const isId = (value: unknown): value is Id => value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

/**
 * Why `message` is not a JSON-RPC 2.0 message the SDK can take, or `undefined` when it is one.
 * Mirrors the SDK's checks (`isRequestMessage`, `isNotificationMessage`, `isResponseShapedMessage`).
 * @internal a pure rule checked on malformed messages, without a stream.
 */
export function invalidReason(message: unknown): string | undefined {
  if (Array.isArray(message)) return 'JSON-RPC batches are not supported';
  if (typeof message !== 'object' || message === null) return 'a message must be a JSON object';
  const m = message as Json;
  if (m['jsonrpc'] !== '2.0') return '"jsonrpc" must be "2.0"';
  if ('method' in m) {
    if (typeof m['method'] !== 'string') return '"method" must be a string';
    if ('id' in m && !isId(m['id'])) return '"id" must be a string, a number or null';
    return undefined;
  }
  if ('id' in m || 'result' in m || 'error' in m) return undefined;
  return 'a message needs a "method", or an "id" with a "result" or "error"';
}

/**
 * Connect NDJSON on `input`/`output` as a message stream for `app.connect`. `input` is any async
 * iterable of bytes: `process.stdin` itself (a Node stream, read without a web-stream wrapper and
 * its queue), or a web `ReadableStream`.
 *
 * Input: lines split at `\n`, blank lines ignored, each line at most `maxLineBytes`. A line that
 * is too long, not JSON, or not a JSON-RPC message is answered (`-32600` for a too long or
 * invalid message, with its `id` when it can be read cheaply; `-32700` with id `null` for a line
 * that is not JSON) and logged at `error`; the stream goes on. A read error ends the message
 * stream and sets {@link NdJsonTransport.failure}.
 *
 * Output: one `JSON.stringify` per message, to a web byte stream or a Node stream (`process.stdout`,
 * written directly; see `line-output.ts`). A message that cannot be serialised (too deep, a
 * cycle) is replaced, for a response, by a `-32603` error answer with the same id; a notification
 * is dropped; both are logged at `error`. Never errors the output because of a message.
 */
export function ndJsonTransport(
  output: WritableStream<Uint8Array> | Writable,
  input: AsyncIterable<Uint8Array>,
  options: NdJsonTransportOptions = {},
): NdJsonTransport {
  const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  const { logger } = options;
  let failure: Error | undefined;
  const out = lineOutput(output);
  const writeLine = (text: string): Promise<void> => out.write(text);
  /** A bounded error answer, never echoing the input; the Bus routing key goes back when known. */
  const answer = (id: Id, code: number, message: string, sessionId?: string | number) =>
    writeLine(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message }, ...(sessionId !== undefined ? { sessionId } : {}) })).catch(() => undefined);

  let lineNumber = 0;
  const handle = (line: SplitLine, enqueue: (message: AnyMessage) => void): Promise<void> | undefined => {
    lineNumber++;
    if (line.kind === 'oversized') {
      const { id, sessionId } = peekIds(line.head);
      const what = `the message is ${line.bytes} bytes, over the ${describeBytes(maxLineBytes)} limit of one stdin line; it was not read`;
      logger?.error(`stdin line ${lineNumber} refused: ${what}`, { id: id ?? null });
      return answer(id ?? null, -32600, `Invalid request: ${what}`, sessionId);
    }
    const text = line.text;
    if (text.trim() === '') return undefined;
    // The splitter has let go of the line's bytes: free them before the parse makes a copy.
    if (line.bytes >= COLLECT_AFTER_BYTES) collectGarbage();
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (error) {
      logger?.error(`stdin line ${lineNumber} is not JSON (${line.bytes} bytes); answered -32700`, { error: (error as Error).message.slice(0, 200) });
      return answer(null, -32700, 'Parse error: the line is not valid JSON');
    }
    const reason = invalidReason(message);
    if (reason === undefined) {
      enqueue(message as AnyMessage);
      return undefined;
    }
    const m: Json = isRecord(message) ? message : {};
    const id = isId(m['id']) ? m['id'] : null;
    const sessionId = typeof m['sessionId'] === 'string' || typeof m['sessionId'] === 'number' ? m['sessionId'] : undefined;
    logger?.error(`stdin line ${lineNumber} is not a JSON-RPC message (${line.bytes} bytes): ${reason}; answered -32600`, { id });
    return answer(id, -32600, `Invalid request: ${reason}`, sessionId);
  };

  let reads: AsyncIterator<Uint8Array> | undefined;
  const readable = new ReadableStream<AnyMessage>({
    async start(controller) {
      const splitter = new LineSplitter(maxLineBytes);
      const enqueue = (message: AnyMessage) => controller.enqueue(message);
      reads = input[Symbol.asyncIterator]();
      try {
        for (;;) {
          const { value, done } = await reads.next();
          if (done) break;
          if (!value) continue;
          const lines: (SplitLine | undefined)[] = splitter.push(value);
          for (let i = 0; i < lines.length; i++) {
            const { bytes } = lines[i]!;
            await handle(lines[i]!, enqueue);
            // The message is parsed: its text is garbage now, before the SDK acts on the message.
            lines[i] = undefined;
            if (bytes >= COLLECT_AFTER_BYTES) collectGarbage();
          }
        }
        const last = splitter.end();
        if (last) await handle(last, enqueue);
      } catch (error) {
        failure = error instanceof Error ? error : new Error(String(error));
        logger?.error('reading stdin failed; the connection ends', { error: failure.message });
      }
      controller.close();
    },
    async cancel() {
      await reads?.return?.();
    },
  });

  const write = (message: AnyMessage): Promise<void> | undefined => {
    let text: string;
    try {
      text = JSON.stringify(message);
    } catch (error) {
      const m = message as Json;
      const isResponse = !('method' in m) && isId(m['id']);
      logger?.error(`a ${isResponse ? 'response' : 'message'} could not be serialised and was ${isResponse ? 'replaced by an error' : 'dropped'}`, {
        method: typeof m['method'] === 'string' ? m['method'] : undefined,
        error: (error as Error).message,
      });
      if (!isResponse) return undefined;
      const sessionId = m['sessionId'];
      return answer(
        m['id'] as Id,
        -32603,
        'Internal error: the answer could not be encoded as JSON',
        typeof sessionId === 'string' || typeof sessionId === 'number' ? sessionId : undefined,
      );
    }
    return writeLine(text);
  };
  const writable = new WritableStream<AnyMessage>({
    write,
    close: () => out.close(),
    abort: (reason) => out.abort(reason),
  });
  return {
    readable,
    writable,
    write,
    get failure() {
      return failure;
    },
  };
}
