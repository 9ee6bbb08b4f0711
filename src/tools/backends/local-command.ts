/**
 * Runs one shell command line locally, in its own process group, and makes sure nothing of it
 * outlives the call.
 *
 * - Shell: `$SHELL -c <line>` (or `/bin/sh`); on Windows `cmd.exe /d /s /c "<line>"`.
 * - stdin is closed (`ignore`): a command waiting for input sees end-of-file instead of hanging.
 * - stdout and stderr go into one buffer, of which the last `outputByteLimit` bytes are kept.
 * - Timeout or abort: SIGTERM to the whole group, SIGKILL 2 s later (0.5 s after an abort) if
 *   anything is left.
 * - When the shell itself exits, what it left running in its group (`cmd &`) is ended the same way:
 *   a command is one-shot, and a leftover process would also hold the output pipe open.
 * - If the agent exits while a command's group is still being ended, the group gets SIGKILL at exit.
 *   (A program that moves itself into another session, like a daemon, escapes this; in the
 *   sandbox it cannot, since the sandbox's PID namespace ends with the command.)
 * - Environment and confinement follow the process-wide policy (`sandbox/tool-processes.ts`): the
 *   agent's secrets and look-alike variables left out, bubblewrap around it when in force.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { toolSpawn } from '../sandbox/tool-processes.js';
import { ToolError } from '../tool.js';
import type { CommandOptions, CommandResult } from './tool-backend.js';

/**
 * Time between SIGTERM and SIGKILL, in ms.
 * @internal the tests tell the two kill delays apart.
 */
export const KILL_GRACE_MS = 2_000;
/**
 * Time between SIGTERM and SIGKILL when the turn is cancelled, in ms: shorter, because the
 * `cancelled` answer waits for the group to be gone and ACP clients expect it at once.
 * @internal the tests tell the two kill delays apart.
 */
export const CANCEL_KILL_GRACE_MS = 500;

/** Process groups of commands not yet settled: SIGKILLed if the agent exits first (no orphans). */
const unsettled = new Set<number>();
let exitHook = false;
function trackGroup(pgid: number): void {
  unsettled.add(pgid);
  if (exitHook) return;
  exitHook = true;
  // 'exit' handlers run synchronously: process.kill is allowed, timers are not.
  process.once('exit', () => {
    for (const group of unsettled) {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // ESRCH: already gone.
      }
    }
  });
}

/**
 * The program and arguments that run `command` through the user's shell.
 * @internal the shell line per platform, checked without running it.
 */
export function shellInvocation(command: string, platform = process.platform, env = process.env): { file: string; args: string[] } {
  if (platform === 'win32') return { file: env.ComSpec || 'cmd.exe', args: ['/d', '/s', '/c', `"${command}"`] };
  return { file: env.SHELL || '/bin/sh', args: ['-c', command] };
}

/**
 * Keeps the last `limit` bytes of a byte stream. Memory stays under about twice the limit.
 * @internal its byte bounds are checked on their own, without a process.
 */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private held = 0;
  /** Bytes seen in total. */
  total = 0;
  /** @param limit - bytes kept (the last ones). */
  constructor(private readonly limit: number) {}

  /** Adds output bytes, dropping the oldest once well past the limit. */
  push(chunk: Buffer): void {
    this.total += chunk.length;
    this.chunks.push(chunk);
    this.held += chunk.length;
    if (this.held > 2 * this.limit + 65_536) this.compact();
  }

  /** The kept bytes as text; a multi-byte character cut at the start is dropped, not mangled. */
  text(): string {
    this.compact();
    const bytes = this.chunks[0] ?? Buffer.alloc(0);
    let start = 0;
    // Skip UTF-8 continuation bytes (10xxxxxx) left over from a character cut in half.
    if (this.total > this.limit) while (start < bytes.length && start < 3 && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
    return bytes.subarray(start).toString('utf8');
  }

  /** True when bytes were dropped. */
  get truncated(): boolean {
    return this.total > this.limit;
  }

  private compact(): void {
    const all = Buffer.concat(this.chunks);
    const kept = all.length > this.limit ? all.subarray(all.length - this.limit) : all;
    this.chunks = [kept];
    this.held = kept.length;
  }
}

/**
 * Runs `command` in `options.cwd` (already checked by the caller).
 * @param writable - the directories the command may write when sandboxed (the session's roots). @defaultValue `[options.cwd]`
 * @returns the exit status and the (tail of the) output once the process and its pipes are closed.
 * @throws the abort signal's reason when aborted (after the process group is gone);
 *   {@link ToolError} when the shell cannot be started, or the sandbox is required and cannot run.
 */
export async function runLocalCommand(command: string, options: CommandOptions, writable: readonly string[] = [options.cwd]): Promise<CommandResult> {
  options.signal.throwIfAborted();
  const windows = process.platform === 'win32';
  const shell = shellInvocation(command);
  const { file, args, env } = toolSpawn(shell.file, shell.args, { cwd: options.cwd, writable });
  const child = spawn(file, args, {
    cwd: options.cwd,
    env,
    detached: !windows,
    stdio: ['ignore', 'pipe', 'pipe'],
    windowsHide: true,
    windowsVerbatimArguments: windows,
  });
  const output = new TailBuffer(Math.max(0, options.outputByteLimit));
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk));

  let timedOut = false;
  let killTimer: NodeJS.Timeout | undefined;
  const pid = child.pid;
  if (pid !== undefined && !windows) trackGroup(pid);
  const groupAlive = (): boolean => {
    if (pid === undefined) return false;
    try {
      process.kill(windows ? pid : -pid, 0);
    } catch {
      return false;
    }
    return windows || groupHasLiving(pid);
  };
  const signalGroup = (signal: NodeJS.Signals): void => {
    if (pid === undefined) return;
    try {
      if (windows) spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true });
      else process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  };
  const killGroup = (graceMs = KILL_GRACE_MS): void => {
    if (!groupAlive()) return;
    signalGroup('SIGTERM');
    // An abort after a timeout (or after the shell's exit) shortens the wait for SIGKILL.
    if (killTimer !== undefined && graceMs >= KILL_GRACE_MS) return;
    clearTimeout(killTimer);
    killTimer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
    killTimer.unref();
  };

  const timeout = setTimeout(
    () => {
      timedOut = true;
      killGroup();
    },
    Math.max(1, options.timeoutMs),
  );
  const onAbort = () => killGroup(CANCEL_KILL_GRACE_MS);
  options.signal.addEventListener('abort', onAbort, { once: true });
  // The shell is gone: end what it left behind in its group (see the module comment).
  child.once('exit', () => {
    if (!windows) killGroup();
  });

  return new Promise<CommandResult>((resolve, reject) => {
    const finish = () => {
      clearTimeout(timeout);
      options.signal.removeEventListener('abort', onAbort);
      // killTimer stays armed (unref'd): a leftover that ignored SIGTERM still gets SIGKILL.
    };
    child.once('error', (error) => {
      if (pid !== undefined) return; // after a start, 'close' still comes and settles
      finish();
      reject(new ToolError(`could not start the command (${file}): ${error.message}`));
    });
    child.once('close', (code, signal) => {
      finish();
      const settle = () => {
        if (pid !== undefined) unsettled.delete(pid);
        if (options.signal.aborted) reject(options.signal.reason);
        else resolve({ output: output.text(), truncated: output.truncated, exitCode: code, signal, timedOut });
      };
      // Once a kill was sent, answer only when the group is gone (bounded: zombies may linger).
      if (killTimer === undefined || windows) settle();
      else void waitUntil(() => !groupAlive(), KILL_GRACE_MS + 1_000).then(settle);
    });
    if (pid !== undefined) void Promise.resolve(options.onStarted?.(undefined)).catch(() => undefined);
  });
}

/**
 * True when process group `pgid` has a member that is not a zombie. A zombie has exited and only
 * waits for its parent (often PID 1, which in some containers reaps slowly) to collect it, yet
 * `kill(-pgid, 0)` still counts it. Reads `/proc` (Linux); elsewhere trusts `kill`.
 */
function groupHasLiving(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so parse after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') return true;
    } catch {
      // The process ended while we looked.
    }
  }
  return false;
}

/** Polls `done` every 25 ms until it holds or `limitMs` passed. */
async function waitUntil(done: () => boolean, limitMs: number): Promise<void> {
  const end = Date.now() + limitMs;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
}
