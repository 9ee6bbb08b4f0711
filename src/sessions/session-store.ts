/**
 * The durable session store: one JSON Lines file per session, `<dir>/<sessionId>.jsonl` (mode
 * 0600, in a directory made with mode 0700). Line 1 is a header
 * `{"type":"session","version":1,"sessionId","cwd","createdAt"}`; every later line is one
 * {@link SessionRecord}, written with `type` and `at` as its first keys. Each write puts its line
 * break BEFORE its record (`\n{…}`), so the file does not end with one, and a record cut short by
 * a writer killed mid-write can never swallow the next record: that starts on a line of its own.
 *
 * Durability and sharing, by construction:
 * - a session file appears whole: the header goes to a temporary file, is fsynced, then
 *   hard-linked (where links are unsupported: renamed) into place, and the directory is fsynced;
 * - an append is ONE `write` of one whole line to a file opened with `O_APPEND`, then `fsync`,
 *   so writers in several processes never interleave inside a record, and a resolved append
 *   survives SIGKILL (and power loss, as far as the filesystem honours fsync);
 * - `load` and `list` always read the files (no cache), so they see other processes' appends; a
 *   line that is torn, not JSON, or not a valid record is skipped with one `logger.warn` naming
 *   the file and the line number (once per store and line, however often it is read);
 * - `list` reads each file but parses only its header, the lines containing `"type":"meta"`, and
 *   its last valid record (about 15 ms for 120 sessions × 20 turns, 13 MB, on a warm cache).
 *
 * `OPENAI_ACP_STATE_DIR=off`, or a directory that cannot be made or written, gives an in-memory
 * store that behaves the same and forgets everything at exit.
 */
import { chmodSync, closeSync, mkdirSync, openSync, promises as fsp, unlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import type { Logger } from '../shared/log.js';
import { FileSessionStore, STALE_TEMP_MS } from './file-store.js';
import { MemorySessionStore } from './memory-store.js';
import type { LeaseOptions } from './session-lease.js';
import type { SessionStore } from './store-base.js';

// The public face of the stores: records and the shared pieces live in their own files.
export type { SessionRecord, StoredSession } from './session-records.js';
export type { SessionStore } from './store-base.js';
export { SessionStoreError } from './store-base.js';

function homeOf(env: NodeJS.ProcessEnv): string {
  const home = env.HOME?.trim();
  return home ? home : homedir();
}

/**
 * The default session directory: `$XDG_STATE_HOME/openai-acp/sessions`, or
 * `$HOME/.local/state/openai-acp/sessions` when XDG_STATE_HOME is unset, empty or relative
 * (relative values are invalid per the XDG Base Directory spec,
 * https://specifications.freedesktop.org/basedir-spec/latest/). HOME falls back to `os.homedir()`.
 * @internal the real-directories guard of the test suite reads where sessions go.
 */
export function defaultStateDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_STATE_HOME?.trim();
  const base = xdg && isAbsolute(xdg) ? xdg : join(homeOf(env), '.local', 'state');
  return join(base, 'openai-acp', 'sessions');
}

/** Makes `dir` (0700 when this call creates it) and proves it writable by creating and removing a probe file. */
async function prepareDir(dir: string): Promise<void> {
  // Synchronous on purpose: `initialize` waits for this answer (whether sessions persist), and
  // four quick system calls cost less than four trips through the thread pool (~3 ms at start).
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (created !== undefined) chmodSync(dir, 0o700);
  const probe = join(dir, `.probe-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`);
  // Only proves the directory writable: no fsync (it would delay every start on slow disks).
  closeSync(openSync(probe, 'wx', 0o600));
  unlinkSync(probe);
  // Best effort, after start-up: temporary files left by a process killed while creating a session.
  setImmediate(() => void removeStaleTemps(dir));
}

/** Removes temporary and probe files older than {@link STALE_TEMP_MS} from `dir`. Never rejects. */
async function removeStaleTemps(dir: string): Promise<void> {
  const names = await fsp.readdir(dir).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.startsWith('.tmp-') || n.startsWith('.probe-'))) {
    const path = join(dir, name);
    const stat = await fsp.stat(path).catch(() => undefined);
    if (stat && Date.now() - stat.mtimeMs > STALE_TEMP_MS) await fsp.unlink(path).catch(() => undefined);
  }
}

/**
 * Opens the session store.
 * - `stateDir` (the raw `OPENAI_ACP_STATE_DIR`, trimmed): unset or empty → {@link defaultStateDir};
 *   `off` in any case → the memory store; `~` or `~/…` → under HOME; relative → from the process cwd.
 * - The directory is created recursively (mode 0700 for what this creates) and probed by creating
 *   and removing a file; if that fails, the memory store is returned.
 * Either way to the memory store logs ONE `logger.warn` saying why and that sessions will not
 * survive a restart. Never rejects.
 */
export async function openSessionStore(options: {
  stateDir?: string | undefined;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Timing of the sessions' leases (`session-lease.ts`). @defaultValue its defaults */
  leases?: LeaseOptions;
}): Promise<SessionStore> {
  const { env, logger } = options;
  const raw = options.stateDir?.trim() ?? '';
  if (raw.toLowerCase() === 'off') {
    logger.warn('session persistence is off (OPENAI_ACP_STATE_DIR=off): sessions are kept in memory and will not survive a restart');
    return new MemorySessionStore(logger);
  }
  let dir: string;
  if (raw === '') dir = defaultStateDir(env);
  else if (raw === '~' || raw.startsWith('~/')) dir = join(homeOf(env), raw.slice(1));
  else dir = resolve(raw);
  try {
    await prepareDir(dir);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    logger.warn(
      `cannot use ${dir} for sessions (${reason}): sessions are kept in memory and will not survive a restart; set ` +
        'OPENAI_ACP_STATE_DIR to a writable directory, or to "off" to silence this',
      { dir },
    );
    return new MemorySessionStore(logger);
  }
  return new FileSessionStore(dir, logger, options.leases);
}

/**
 * Longest title {@link titleFromPrompt} returns, in characters (code points), "…" included.
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const TITLE_MAX_CHARS = 80;

/**
 * Text blocks a client writes to share context, not the user's words: CodeCompanion's rules file
 * (`Sharing \`AGENTS.md\`:\n\n---\n…`) and shared files (`Sharing the following file as context: <path>`)
 * (olimorris/codecompanion.nvim `interactions/shared/rules/helpers.lua`, `adapters/acp/helpers.lua`).
 */
const SHARED_CONTEXT = /^\s*Sharing (`[^`\n]+`:|the following file as context: )/;

/**
 * A title from a prompt: the user's words, i.e. the text of its text blocks but those that share
 * context ({@link SHARED_CONTEXT}; resource, resource_link and image blocks never count), joined
 * by spaces, whitespace collapsed, trimmed; at most {@link TITLE_MAX_CHARS} code points, cut at a
 * word boundary when one falls in the second half (else mid-word) and ended with "…". A prompt of
 * shared context only is titled by it. Undefined when there is no text.
 */
export function titleFromPrompt(prompt: readonly ContentBlock[]): string | undefined {
  const words = prompt.filter((block) => block.type === 'text' && typeof block.text === 'string' && !SHARED_CONTEXT.test(block.text.slice(0, 512)));
  return titleFromText(words.length > 0 ? words : prompt);
}

function titleFromText(prompt: readonly ContentBlock[]): string | undefined {
  const enough = TITLE_MAX_CHARS * 2 + 2;
  let text = '';
  for (const block of prompt) {
    if (block.type !== 'text' || typeof block.text !== 'string') continue;
    // Only a head of the block is read (growing while whitespace collapses it too short):
    // a prompt of tens of MB must not be copied, nor spread into an array of characters.
    for (let take = 512; ; take *= 4) {
      const head = block.text.length > take ? block.text.slice(0, take) : block.text;
      const next = `${text} ${head}`.replace(/\s+/g, ' ').trim();
      if (head === block.text || next.length > enough) {
        text = next;
        break;
      }
    }
    // Enough to decide the cut; the rest of a long prompt does not matter.
    if (text.length > enough) break;
  }
  if (text === '') return undefined;
  const chars = Array.from(text);
  if (chars.length <= TITLE_MAX_CHARS) return text;
  const head = chars.slice(0, TITLE_MAX_CHARS - 1).join('');
  const space = head.lastIndexOf(' ');
  const atBoundary = chars[TITLE_MAX_CHARS - 1] === ' ';
  const cut = atBoundary ? head : space >= head.length / 2 ? head.slice(0, space) : head;
  return `${cut.trimEnd()}…`;
}
