/**
 * Where the NDJSON transport writes its lines: a web byte stream, or a Node stream such as
 * `process.stdout` written directly (no `Writable.toWeb` adapter: one WritableStream less for
 * every message the agent sends, a measured part of its time per tool step).
 */
import type { Writable } from 'node:stream';

/** Writes whole lines, in call order. */
export interface LineOutput {
  /**
   * Writes `text` and a line feed (UTF-8).
   * @returns a promise that resolves once the output takes more (at once when it has room; after
   *   `drain` when a Node stream is full); rejects when the output failed or was closed.
   */
  write(text: string): Promise<void>;
  /** Ends the output after the lines written so far. */
  close(): Promise<void>;
  /** Ends the output at once (`destroy` of a Node stream). */
  abort(reason: unknown): Promise<void>;
}

const isWebStream = (output: WritableStream<Uint8Array> | Writable): output is WritableStream<Uint8Array> =>
  typeof (output as WritableStream).getWriter === 'function';

/** The {@link LineOutput} of `output`. */
export function lineOutput(output: WritableStream<Uint8Array> | Writable): LineOutput {
  return isWebStream(output) ? webLines(output) : nodeLines(output);
}

function webLines(output: WritableStream<Uint8Array>): LineOutput {
  let writing: Promise<void> = Promise.resolve();
  const writer = output.getWriter();
  return {
    write(text) {
      const write = writing.then(() => writer.write(Buffer.from(`${text}\n`, 'utf8')));
      writing = write.catch(() => undefined);
      return write;
    },
    close: () => writing.then(() => writer.close()),
    abort: (reason) => writer.abort(reason),
  };
}

const DONE = Promise.resolve();

/**
 * Lines to a Node stream, batched: the lines written while the agent works without waiting (the
 * `tool_call`, its `in_progress` update and the `fs/read_text_file` request of one tool step, say)
 * go out as one `write`, at the next `process.nextTick` after the first of them, i.e. once the
 * promise jobs in progress have run (the agent then waits for I/O or is done). One write system
 * call instead of one per message; the order of lines is unchanged.
 *
 * A write resolves at once unless the stream is full (its last `write` returned false): then it
 * resolves at `drain`. Failures are the stream's `error` event (still heard by any other listener,
 * such as the CLI's, which shuts down); after one, or once the stream is destroyed or ended,
 * every write rejects, so the connection writing through it closes as it did through the web adapter.
 */
function nodeLines(output: Writable): LineOutput {
  let failure: Error | undefined;
  const closed = () => failure ?? (output.destroyed || output.writableEnded ? new Error('the output stream is closed') : undefined);
  let batch = '';
  /** Writes waiting for room (the stream's last `write` returned false), settled at `drain`, `error` or `close`. */
  let waiting: { resolve: () => void; reject: (error: Error) => void }[] | undefined;
  const settle = () => {
    const settled = waiting ?? [];
    waiting = undefined;
    const error = closed();
    for (const write of settled)
      if (error) write.reject(error);
      else write.resolve();
  };
  output.on('drain', settle);
  output.on('close', settle);
  output.on('error', (error: Error) => {
    failure ??= error;
    settle();
  });
  const flush = () => {
    const text = batch;
    batch = '';
    if (text !== '' && !closed() && !output.write(text)) waiting ??= [];
  };
  return {
    write(text) {
      const error = closed();
      if (error) return Promise.reject(error);
      if (batch === '') process.nextTick(flush);
      batch += `${text}\n`;
      if (!waiting) return DONE;
      const room = waiting;
      return new Promise<void>((resolve, reject) => room.push({ resolve, reject }));
    },
    close() {
      flush();
      return output.writableEnded ? DONE : new Promise<void>((resolve) => output.end(() => resolve()));
    },
    abort(reason) {
      batch = '';
      output.destroy(reason instanceof Error ? reason : undefined);
      return DONE;
    },
  };
}
