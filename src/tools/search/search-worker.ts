/**
 * The JavaScript search off the main thread: a worker thread tests the model's regular expression
 * and glob (untrusted input: a backtracking pattern can run for hours) against the files the main
 * thread's walk hands it in batches. A cancel or the time budget ends it with `terminate()`, which
 * stops even a regex in the middle of a line, so other sessions keep streaming meanwhile.
 *
 * The worker's code is {@link WORKER_SOURCE}, plain JavaScript run with `eval: true` (a bundler
 * would rename what a function's own text refers to). It opens files with `O_NOFOLLOW |
 * O_NONBLOCK`, so a symlink or FIFO swapped in after the walk is never followed or waited on.
 */
import { Worker } from 'node:worker_threads';
import type { GlobSpec } from './glob.js';

/** What the worker is told once, at its start. */
export interface WorkerSetup {
  /** JavaScript regex source and flags; `undefined` lists the files the glob matches instead. */
  regex?: { source: string; flags: string } | undefined;
  /** The glob filter, or none. */
  glob?: GlobSpec | undefined;
  /** Larger files are skipped, in bytes. */
  maxFileBytes: number;
  /** Matched lines are trimmed and cut to this many characters. */
  maxLineChars: number;
  /** Most matches (or listed files) reported; one more is looked for to tell that there are more. */
  maxMatches: number;
  /** Bytes looked at for a NUL to call a file binary. */
  sniffBytes: number;
}

/** One file handed to the worker: its absolute path and its `/`-separated path relative to the searched directory. */
export interface WorkerFile {
  abs: string;
  rel: string;
}

/** What the worker found in all, so far. */
interface WorkerProgress {
  /** Files read and tested against the pattern (or matched by the glob, when listing). */
  filesSearched: number;
  /** Matching lines `[file, 1-based line, cut text]`, or listed files `[file, 0, '']`. */
  matches: [string, number, string][];
  /** True when more matches existed than `maxMatches`. */
  moreMatches: boolean;
}

/** How a worker search ended. */
export interface WorkerOutcome extends WorkerProgress {
  /** True when the time budget ran out before the walk did. */
  timedOut: boolean;
}

/** Files per message to the worker. */
const BATCH = 256;

/** Asks the worker which of these `/`-separated relative directory paths the glob matches (the walk's question about directories). */
export type AskGlob = (rels: string[]) => Promise<boolean[]>;

let live = 0;

/**
 * Worker threads started and not yet exited (for tests: a cancelled search leaves none).
 * @internal the tests check a cancelled search leaves no worker.
 */
export function liveSearchWorkers(): number {
  return live;
}

/**
 * Runs the worker over the files `files(ask)` yields until they run out, `maxMatches` is passed, `budgetMs` runs out
 * (then `timedOut`, with what was found so far) or `signal` aborts (then it rejects with the
 * signal's reason at once; the worker is terminated).
 * @throws the signal's reason; an Error when the worker fails (a bug of ours).
 */
export async function runWorkerSearch(
  setup: WorkerSetup,
  files: (ask: AskGlob) => AsyncIterable<WorkerFile>,
  signal: AbortSignal,
  budgetMs: number,
): Promise<WorkerOutcome> {
  signal.throwIfAborted();
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: setup });
  live++;
  worker.once('exit', () => live--);
  worker.unref();
  const progress: WorkerProgress = { filesSearched: 0, matches: [], moreMatches: false };
  let over = false;
  let stop: ((outcome: 'timeout' | 'abort') => void) | undefined;
  const stopped = new Promise<'timeout' | 'abort'>((resolve) => (stop = resolve));
  const onAbort = () => stop?.('abort');
  signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => stop?.('timeout'), budgetMs);
  timer.unref?.();
  let failure: Error | undefined;
  const failed = new Promise<'failed'>((resolve) => {
    worker.once('error', (error) => {
      failure = error;
      resolve('failed');
    });
    // An exit nobody asked for (the worker only ends when terminated) fails the search too.
    worker.once('exit', (code) => {
      failure ??= new Error(`the worker exited with code ${code}`);
      resolve('failed');
    });
  });
  // Once stopped or failed, no answer will come: the walk then ends instead of waiting forever.
  const halted = Promise.race([stopped, failed]).then(() => {
    over = true;
    return undefined;
  });
  // Each answer carries the matches found since the last one.
  const exchange = <T>(message: unknown): Promise<T | undefined> => {
    const answered = new Promise<T>((resolve) => {
      worker.once('message', (answer: T) => resolve(answer));
    });
    worker.postMessage(message);
    return Promise.race([answered, halted]);
  };
  const ask: AskGlob = async (rels) => (await exchange<boolean[]>({ dirs: rels })) ?? rels.map(() => false);
  const walk = async (): Promise<'done'> => {
    const iterator = files(ask)[Symbol.asyncIterator]();
    for (;;) {
      const batch: WorkerFile[] = [];
      let finished = false;
      while (batch.length < BATCH && !over) {
        const next = await iterator.next();
        if (next.done) {
          finished = true;
          break;
        }
        batch.push(next.value);
      }
      if (batch.length > 0) {
        const answer = await exchange<WorkerProgress>(batch);
        if (!answer) break;
        progress.filesSearched = answer.filesSearched;
        progress.matches.push(...answer.matches);
        progress.moreMatches = answer.moreMatches;
        if (progress.moreMatches) break;
      }
      if (finished || over) break;
    }
    await iterator.return?.();
    return 'done';
  };
  try {
    const how = await Promise.race([walk(), stopped, failed]);
    if (how === 'abort') throw signal.reason;
    if (how === 'failed') throw new Error(`search worker failed: ${failure?.message}`);
    return { ...progress, matches: progress.matches.slice(), timedOut: how === 'timeout' };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    void worker.terminate();
  }
}

/**
 * The worker's whole program, given a {@link WorkerSetup} as `workerData`. Answers a batch of
 * {@link WorkerFile}s with `{filesSearched, matches, moreMatches}` (the files searched so far, the
 * matches new since the last answer) and `{dirs}` with whether the glob matches each directory.
 */
const WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData: setup } = require('node:worker_threads');
const fs = require('node:fs');
const regex = setup.regex ? new RegExp(setup.regex.source, setup.regex.flags) : undefined;
const glob = setup.glob ? new RegExp(setup.glob.source) : undefined;
const progress = { filesSearched: 0, matches: [], moreMatches: false };
const flags = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW || 0) | (fs.constants.O_NONBLOCK || 0);
const decoder = new TextDecoder('utf-8');

function cut(text) {
  const trimmed = text.trim();
  if (trimmed.length <= setup.maxLineChars) return trimmed;
  let end = setup.maxLineChars;
  const code = trimmed.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return trimmed.slice(0, end) + '\u2026';
}
function add(entry) {
  if (progress.matches.length >= setup.maxMatches) {
    progress.moreMatches = true;
    return false;
  }
  progress.matches.push(entry);
  return true;
}
function globMatches(rel) {
  return glob.test(setup.glob.basename ? rel.slice(rel.lastIndexOf('/') + 1) : rel);
}
function read(abs) {
  let fd;
  try {
    fd = fs.openSync(abs, flags);
    const info = fs.fstatSync(fd);
    if (!info.isFile() || info.size > setup.maxFileBytes) return undefined;
    return fs.readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
function searchOne(file) {
  if (glob && globMatches(file.rel) === setup.glob.negate) return true;
  if (!regex) {
    progress.filesSearched++;
    return add([file.abs, 0, '']);
  }
  const bytes = read(file.abs);
  if (!bytes) return true;
  progress.filesSearched++;
  if (bytes.subarray(0, setup.sniffBytes).includes(0)) return true;
  const lines = decoder.decode(bytes).split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    if (regex.test(lines[i]) && !add([file.abs, i + 1, cut(lines[i])])) return false;
  }
  return true;
}
parentPort.on('message', (message) => {
  if (!Array.isArray(message)) {
    parentPort.postMessage(message.dirs.map((rel) => (glob ? globMatches(rel) : false)));
    return;
  }
  const found = progress.matches.length;
  for (const file of message) if (!searchOne(file)) break;
  parentPort.postMessage({ filesSearched: progress.filesSearched, matches: progress.matches.slice(found), moreMatches: progress.moreMatches });
});
`;
