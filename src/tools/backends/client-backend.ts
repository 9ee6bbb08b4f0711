/**
 * Tools through the client: `fs/read_text_file`, `fs/write_text_file` and `terminal/*` when the
 * client advertised them (the editor then sees unsaved buffers and shows the edits), the local
 * backend for whatever it did not. A file is never written both ways: each capability goes to
 * exactly one side.
 *
 * Sources: ACP file system https://agentclientprotocol.com/protocol/v1/file-system and terminals
 * https://agentclientprotocol.com/protocol/v1/terminals (create → output/wait_for_exit → kill →
 * release; the agent must release what it creates).
 */
import type { AgentContext, ClientCapabilities, ReadTextFileRequest } from '@agentclientprotocol/sdk/unstable';
import { ToolError } from '../tool.js';
import type { CommandOptions, CommandResult, ToolBackend } from './tool-backend.js';

/** Rejects with the signal's reason as soon as `signal` aborts; otherwise settles as `promise` does. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => undefined);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** A client's error answer in words: its message. */
function refusalText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'object' && error && 'message' in error ? String((error as { message: unknown }).message) : String(error);
}

/** Whether a client's error answer says something was not there (in its message or its JSON-RPC `data`). */
function saysNotFound(error: unknown): boolean {
  const data = typeof error === 'object' && error && 'data' in error ? JSON.stringify((error as { data: unknown }).data) : '';
  return /not found|no such file|ENOENT|does not exist|cannot find/i.test(`${refusalText(error)} ${data}`);
}

/** The words of a client's error answer, for the model ("not found" kept as such, so edits can create files). */
function clientRefusal(what: string, error: unknown): ToolError {
  return new ToolError(`The editor could not ${what}: ${refusalText(error)}`, saysNotFound(error) ? 'not_found' : 'other');
}

/** Which of the client's capabilities the tools use. */
export interface ClientToolCapabilities {
  readTextFile: boolean;
  writeTextFile: boolean;
  terminal: boolean;
  /**
   * The client spawns a terminal's `command` without a shell: a command line goes to it as
   * `/bin/sh -c <line>` at once, not first as a program name it refuses. @defaultValue false
   */
  shellFirst?: boolean;
}

/**
 * Clients known to spawn `terminal/create`'s `command` as a program, without a shell (by
 * `clientInfo.name`): acpx (`spawn(params.command, params.args)` in its terminal manager; its
 * refusal of `npm test` prints `[error] RUNTIME` and the ENOENT stack to its user).
 */
const SPAWNS_WITHOUT_SHELL: ReadonlySet<string> = new Set(['acpx']);

/** The capabilities the tools use, read from the client's `initialize` (absent means false). */
export function toolCapabilities(capabilities: ClientCapabilities | undefined, clientName?: string): ClientToolCapabilities {
  const found: ClientToolCapabilities = {
    readTextFile: capabilities?.fs?.readTextFile === true,
    writeTextFile: capabilities?.fs?.writeTextFile === true,
    terminal: capabilities?.terminal === true,
  };
  if (clientName !== undefined && SPAWNS_WITHOUT_SHELL.has(clientName)) found.shellFirst = true;
  return found;
}

/** Poll interval for a client terminal's exit while watching for abort and the time limit, in ms. */
const WAIT_SLICE_MS = 250;

/**
 * `terminal/create` for a command line. A client that spawns `command` without a shell (acpx
 * 0.1.x; acpx 0.19 falls back to a shell itself) answers that the program `npm test` does not
 * exist: the same line is then asked for again through the shell, `/bin/sh -c` (`cmd.exe /d /s /c`
 * on Windows, the agent's platform standing for the client's). Any other refusal stands.
 * Source: ACP terminals https://agentclientprotocol.com/protocol/v1/terminals (`command`, `args`).
 */
function createTerminal(client: AgentContext, params: Parameters<AgentContext['createTerminal']>[0], shellFirst = false) {
  const shell =
    process.platform === 'win32' ? { command: 'cmd.exe', args: ['/d', '/s', '/c', params.command] } : { command: '/bin/sh', args: ['-c', params.command] };
  // A client known to spawn without a shell gets the shell at once: no refusal shown to its user first.
  if (shellFirst) return client.createTerminal({ ...params, ...shell });
  return client.createTerminal(params).catch((error: unknown) => {
    if (!saysNotFound(error)) throw error;
    return client.createTerminal({ ...params, ...shell });
  });
}

/**
 * The backend for one session: each capability through the client when advertised, else through
 * `local`. Commands in a client terminal are created with the whole shell line as `command` (no
 * `args`; clients run it through a shell, as Zed and acpx do), killed on abort or at their time
 * limit; the caller releases the terminal (`release()`) after showing it.
 */
export function createClientBackend(options: {
  client: AgentContext;
  sessionId: string;
  capabilities: ClientToolCapabilities;
  local: ToolBackend;
}): ToolBackend {
  const { client, sessionId, capabilities, local } = options;
  return {
    where: {
      read: capabilities.readTextFile ? 'client' : 'local',
      write: capabilities.writeTextFile ? 'client' : 'local',
      terminal: capabilities.terminal ? 'client' : 'local',
    },
    async readTextFile(path, signal, range) {
      if (!capabilities.readTextFile) return local.readTextFile(path, signal, range);
      try {
        const params: ReadTextFileRequest = {
          sessionId,
          path,
          ...(range?.line !== undefined ? { line: range.line } : {}),
          ...(range?.limit !== undefined ? { limit: range.limit } : {}),
        };
        const answer = await raceAbort(client.request('fs/read_text_file', params), signal);
        return typeof answer?.content === 'string' ? answer.content : '';
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        throw clientRefusal(`read ${path}`, error);
      }
    },
    async writeTextFile(path, content, signal) {
      if (!capabilities.writeTextFile) return local.writeTextFile(path, content, signal);
      try {
        await raceAbort(client.request('fs/write_text_file', { sessionId, path, content }), signal);
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        throw clientRefusal(`write ${path}`, error);
      }
    },
    // ACP has no stat or delete: the client's files are asked about on the shared disk.
    ...(local.fileExists ? { fileExists: local.fileExists } : {}),
    ...(local.deleteFile ? { deleteFile: local.deleteFile } : {}),
    async runCommand(command, run) {
      if (!capabilities.terminal) return local.runCommand(command, run);
      return runInClientTerminal(client, sessionId, command, run, capabilities.shellFirst);
    },
  };
}

async function runInClientTerminal(
  client: AgentContext,
  sessionId: string,
  command: string,
  run: CommandOptions,
  shellFirst?: boolean,
): Promise<CommandResult & { release: () => Promise<void> }> {
  let terminal: Awaited<ReturnType<AgentContext['createTerminal']>>;
  const creating = createTerminal(client, { sessionId, command, cwd: run.cwd, outputByteLimit: run.outputByteLimit }, shellFirst);
  try {
    terminal = await raceAbort(creating, run.signal);
  } catch (error) {
    if (run.signal.aborted) {
      // Cancelled before the client answered: the command may still start, so stop and free it once it does.
      creating.then(
        async (late) => {
          await late.kill().catch(() => undefined);
          await late.release().catch(() => undefined);
        },
        () => undefined,
      );
      throw run.signal.reason;
    }
    throw clientRefusal(`run the command`, error);
  }
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    await terminal.release().catch(() => undefined);
  };
  try {
    await run.onStarted?.(terminal.id);
    const deadline = Date.now() + run.timeoutMs;
    const exit = terminal.waitForExit();
    exit.catch(() => undefined);
    let timedOut = false;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) {
        timedOut = true;
        break;
      }
      const tick = new Promise<'tick'>((resolve) => setTimeout(resolve, Math.min(WAIT_SLICE_MS, left), 'tick').unref?.());
      const settled = await raceAbort(Promise.race([exit.then(() => 'exit' as const), tick]), run.signal).catch(async (error: unknown) => {
        if (!run.signal.aborted) throw error;
        // Cancelled: kill the command and free its terminal before answering.
        await terminal.kill().catch(() => undefined);
        await release();
        throw run.signal.reason;
      });
      if (settled === 'exit') break;
    }
    if (timedOut) await terminal.kill().catch(() => undefined);
    const output = await terminal.currentOutput();
    const status = output.exitStatus ?? (timedOut ? undefined : await exit.catch(() => undefined));
    return {
      output: output.output,
      truncated: output.truncated,
      exitCode: status?.exitCode ?? null,
      signal: status?.signal ?? (timedOut ? 'SIGKILL' : null),
      timedOut,
      release,
    };
  } catch (error) {
    await release();
    if (run.signal.aborted) throw run.signal.reason;
    if (error instanceof ToolError) throw error;
    throw clientRefusal('run the command', error);
  }
}
