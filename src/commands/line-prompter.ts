/**
 * Line-by-line questions on a terminal or a pipe, for the setup wizard. Built on
 * `node:readline/promises`; answers typed ahead (a pipe delivering everything at once) are kept
 * in order. End of input (Ctrl-D, a closed pipe) and Ctrl-C end the conversation: every pending
 * and later question answers `undefined`.
 */
import { createInterface } from 'node:readline/promises';
import { Writable, type Readable } from 'node:stream';

/** Asks questions, one answer line each. */
export interface LinePrompter {
  /**
   * Writes `question` and reads one line.
   * @param options.secret - on a terminal, do not echo what is typed.
   * @returns the line without its line break, or `undefined` once input ended (or Ctrl-C).
   */
  ask(question: string, options?: { secret?: boolean }): Promise<string | undefined>;
  /** Whether Ctrl-C ended the input. */
  readonly interrupted: boolean;
  /** Releases the input. */
  close(): void;
}

/**
 * A prompter over `input`/`output` (a terminal when both are TTYs: then readline edits the line
 * and a secret answer is not echoed; on a pipe nothing is echoed anyway).
 */
export function createLinePrompter(input: Readable & { isTTY?: boolean }, output: NodeJS.WritableStream & { isTTY?: boolean }): LinePrompter {
  let muted = false;
  let interrupted = false;
  // readline echoes typed characters through its output; muting that stream hides a secret.
  const echo = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) output.write(chunk);
      done();
    },
  });
  const terminal = Boolean(input.isTTY && output.isTTY);
  const rl = createInterface({ input, output: echo, terminal });
  const lines = rl[Symbol.asyncIterator]();
  rl.on('SIGINT', () => {
    interrupted = true;
    rl.close();
  });
  let ended = false;
  return {
    async ask(question, options = {}) {
      if (ended) return undefined;
      output.write(question);
      muted = Boolean(options.secret) && terminal;
      try {
        const next = await lines.next();
        if (next.done) {
          ended = true;
          return undefined;
        }
        return String(next.value);
      } finally {
        // A terminal echoed the line break (unless muted or input ended); otherwise end the question's line ourselves.
        if (muted || !terminal || ended) output.write('\n');
        muted = false;
      }
    },
    get interrupted() {
      return interrupted;
    },
    close() {
      ended = true;
      rl.close();
    },
  };
}
