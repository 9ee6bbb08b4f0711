/**
 * `search_files` through ripgrep (`rg`), when it is installed: its walk (`.gitignore`, `.ignore`,
 * `.git/info/exclude`, hidden files skipped, symlinks not followed), binary detection and regex
 * engine (linear time: no pattern can make it backtrack), its `--json` output read into the same
 * result as the JavaScript search. Output is bounded: rg is killed once one match more than
 * reported was read, at the time budget, and on cancel.
 *
 * Sources: ripgrep's guide and `rg --help` (https://github.com/BurntSushi/ripgrep/blob/master/GUIDE.md),
 * the JSON Lines format of `--json` (https://docs.rs/grep-printer/latest/grep_printer/struct.JSON.html).
 */
import { execFile, spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../tool.js';

/** One event of `rg --json` that the search uses. */
type RgEvent = { kind: 'match'; file: string; line: number; text: string } | { kind: 'summary'; filesSearched: number };

/** A JSON text field of rg's output: `{text}` when it is UTF-8, else `{bytes}` (base64). */
type RgData = { text?: string; bytes?: string } | undefined;

function dataText(data: RgData): string | undefined {
  if (typeof data?.text === 'string') return data.text;
  if (typeof data?.bytes === 'string') return Buffer.from(data.bytes, 'base64').toString('utf8');
  return undefined;
}

/**
 * Reads one line of `rg --json` output: a `match` (its file, 1-based line number and line text,
 * line end included) or the closing `summary` (files searched); `undefined` for every other line
 * (`begin`, `end`, `context`, anything unreadable). Pure; never throws.
 * @internal ripgrep's JSON lines are checked as recorded, without ripgrep.
 */
export function parseRgJsonLine(line: string): RgEvent | undefined {
  let message: { type?: unknown; data?: Record<string, unknown> };
  try {
    message = JSON.parse(line) as typeof message;
  } catch {
    return undefined;
  }
  const data = message?.data;
  if (!data || typeof data !== 'object') return undefined;
  if (message.type === 'match') {
    const file = dataText(data['path'] as RgData);
    const text = dataText(data['lines'] as RgData);
    const number = data['line_number'];
    if (file === undefined || text === undefined || typeof number !== 'number') return undefined;
    return { kind: 'match', file, line: number, text };
  }
  if (message.type === 'summary') {
    const searches = (data['stats'] as { searches?: unknown } | undefined)?.searches;
    return typeof searches === 'number' ? { kind: 'summary', filesSearched: searches } : undefined;
  }
  return undefined;
}

/** How to run rg. */
export interface RgRun {
  /** The rg executable. */
  rg: string;
  /** ripgrep-dialect pattern; `undefined` lists the files the glob matches (`--files`). */
  pattern?: string | undefined;
  /** Absolute directory to search. */
  path: string;
  /** `--glob`, or none. */
  glob?: string | undefined;
  /** `--max-filesize`, in bytes. */
  maxFileBytes: number;
  /** Stop (kill rg) once one more than this many matches or files were read. */
  maxMatches: number;
  /** Kill rg after this long, in ms, keeping what it found. */
  budgetMs: number;
}

/** What rg found. */
export interface RgOutcome {
  /** `[file, line, text]` (line 0 and no text for listed files), in rg's order; file paths relative to the searched directory. */
  matches: [string, number, string][];
  /** Files searched, from rg's summary; `undefined` when it was stopped before giving one. */
  filesSearched: number | undefined;
  moreMatches: boolean;
  timedOut: boolean;
}

/** Longest rg output line kept, in characters: a 1 MiB line JSON-escaped fits. */
const MAX_RG_LINE = 16 * 1024 * 1024;
/** Most characters of rg's stderr kept for an error message. */
const MAX_RG_STDERR = 4000;

/**
 * The arguments of a run (no shell: each is one argv entry). Pure.
 * @internal ripgrep's arguments are checked without ripgrep.
 */
export function rgArguments(run: Omit<RgRun, 'rg' | 'budgetMs' | 'maxMatches'>): string[] {
  const common = ['--no-config', '--no-require-git', '--no-messages'];
  const glob = run.glob?.trim() ? ['--glob', run.glob.trim()] : [];
  if (run.pattern === undefined) return ['--files', ...common, ...glob, '--', run.path];
  return ['--json', '--crlf', ...common, '--max-filesize', String(run.maxFileBytes), ...glob, '--regexp', run.pattern, '--', run.path];
}

/**
 * Runs rg. Exit 1 (nothing found) is no error.
 * @throws {ToolError} with rg's words when it refuses the pattern or glob (exit 2, nothing found);
 *   the signal's reason when aborted (rg is killed first).
 */
export function runRipgrep(run: RgRun, signal: AbortSignal): Promise<RgOutcome> {
  signal.throwIfAborted();
  const outcome: RgOutcome = { matches: [], filesSearched: undefined, moreMatches: false, timedOut: false };
  // Run in the searched directory on `.`: rg matches a glob with a `/` against paths relative to
  // its working directory.
  const child = spawn(run.rg, rgArguments({ ...run, path: '.' }), {
    cwd: run.path,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, RIPGREP_CONFIG_PATH: '' },
  });
  return new Promise<RgOutcome>((resolve, reject) => {
    let pending = '';
    let stderr = '';
    let killed = false;
    const kill = () => {
      if (killed) return;
      killed = true;
      child.kill('SIGKILL');
    };
    const onAbort = () => {
      kill();
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => {
      outcome.timedOut = true;
      kill();
    }, run.budgetMs);
    timer.unref?.();
    const take = (line: string) => {
      if (killed || line === '') return;
      if (run.pattern === undefined) {
        if (outcome.matches.length >= run.maxMatches) {
          outcome.moreMatches = true;
          return kill();
        }
        outcome.matches.push([line, 0, '']);
        return;
      }
      const event = parseRgJsonLine(line);
      if (event?.kind === 'summary') outcome.filesSearched = event.filesSearched;
      if (event?.kind !== 'match') return;
      if (outcome.matches.length >= run.maxMatches) {
        outcome.moreMatches = true;
        return kill();
      }
      outcome.matches.push([event.file, event.line, event.text]);
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      pending += chunk;
      let end: number;
      while ((end = pending.indexOf('\n')) !== -1) {
        take(pending.slice(0, end));
        pending = pending.slice(end + 1);
      }
      if (pending.length > MAX_RG_LINE) {
        pending = '';
        kill();
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < MAX_RG_STDERR) stderr += chunk.slice(0, MAX_RG_STDERR - stderr.length);
    });
    const finish = (code: number | null, error?: Error) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted) return;
      if (!killed && pending) take(pending);
      if (error) return reject(new ToolError(`could not run ripgrep (${run.rg}): ${error.message}`));
      if (code === 2 && outcome.matches.length === 0 && !killed) {
        return reject(new ToolError(`ripgrep refused the search: ${stderr.trim().replace(/\s*\n\s*/g, ' ') || 'exit code 2'}`));
      }
      resolve(outcome);
    };
    child.once('error', (error) => finish(null, error));
    child.once('close', (code) => finish(code));
  });
}

/** Where the ripgrep executable is and its version (`ripgrep 14.1.1`), or why there is none. */
export type RipgrepLookup = { path: string; version: string } | { path: undefined; why: string };

/** How long `rg --version` may take, in ms. */
const VERSION_TIMEOUT_MS = 5_000;

const lookups = new Map<string, Promise<RipgrepLookup>>();

/**
 * Finds rg for the `OPENAI_ACP_RIPGREP` setting: unset, empty or `auto` → `rg` on the PATH;
 * `off` → none; a path (or a name looked up on the PATH) → that file when it is executable and
 * answers `--version` as ripgrep does. Remembered per setting and PATH for the life of the process.
 */
export function findRipgrep(setting: string | undefined, envPath = process.env['PATH'] ?? ''): Promise<RipgrepLookup> {
  const key = `${setting ?? ''}\0${envPath}`;
  let found = lookups.get(key);
  if (!found) {
    found = lookUp(setting?.trim() ?? '', envPath);
    lookups.set(key, found);
  }
  return found;
}

async function lookUp(setting: string, envPath: string): Promise<RipgrepLookup> {
  if (/^off$/i.test(setting)) return { path: undefined, why: 'OPENAI_ACP_RIPGREP=off' };
  const name = setting === '' || /^auto$/i.test(setting) ? 'rg' : setting;
  const executable = async (file: string) =>
    access(file, constants.X_OK).then(
      () => true,
      () => false,
    );
  if (name.includes('/') || name.includes(path.sep)) {
    const file = path.resolve(name);
    return (await executable(file)) ? withVersion(file) : { path: undefined, why: `OPENAI_ACP_RIPGREP names ${file}, which is not an executable file` };
  }
  const suffixes = process.platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
  for (const dir of envPath.split(path.delimiter).filter(Boolean)) {
    for (const suffix of suffixes) {
      const file = path.join(dir, name + suffix);
      if (await executable(file)) return withVersion(file);
    }
  }
  return { path: undefined, why: `${name} is not on the PATH` };
}

async function withVersion(file: string): Promise<RipgrepLookup> {
  const version = await new Promise<string | undefined>((resolve) => {
    execFile(file, ['--version'], { timeout: VERSION_TIMEOUT_MS }, (error, stdout) => resolve(error ? undefined : /^ripgrep \S+/.exec(stdout)?.[0]));
  });
  return version ? { path: file, version } : { path: undefined, why: `${file} did not answer --version as ripgrep does` };
}
