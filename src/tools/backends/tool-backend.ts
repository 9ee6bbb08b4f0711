/**
 * Where the tools act: the {@link ToolBackend} interface and the shapes of its calls. Two
 * implementations: through the client (`client-backend.ts`: ACP `fs/*`, `terminal/*`) when it
 * advertised them, and local (`local-backend.ts`: Node's fs and child_process, confined to the
 * workspace); `checkpoint-backend.ts` wraps either to keep what a turn overwrites.
 *
 * Sources: ACP file system https://agentclientprotocol.com/protocol/v1/file-system and terminals
 * https://agentclientprotocol.com/protocol/v1/terminals.
 */

/** One entry of a directory listing. */
export interface DirectoryEntry {
  /** The name inside the directory. */
  name: string;
  /** True for directories (shown with a trailing `/`). */
  directory: boolean;
}

/** Lines of a file to read: the first (1-based) and how many. */
export interface LineRange {
  line?: number | undefined;
  limit?: number | undefined;
}

/** A finished command. */
export interface CommandResult {
  /** Combined stdout and stderr as text, at most the byte limit asked for (the tail is kept when cut). */
  output: string;
  /** True when output was dropped to stay under the byte limit. */
  truncated: boolean;
  /** The exit code, or null when the process ended by a signal (or never started). */
  exitCode: number | null;
  /** The signal that ended the process (`SIGKILL`, …), or null. */
  signal: string | null;
  /** True when the command was killed because it ran past its time limit. */
  timedOut: boolean;
}

/** How a command is run. */
export interface CommandOptions {
  /** Absolute working directory. */
  cwd: string;
  /** Time limit in ms; the command (its whole process group) is killed when it runs longer. */
  timeoutMs: number;
  /** Most output bytes kept (the tail is kept). */
  outputByteLimit: number;
  /** Aborts the command: it is killed (and its terminal released) and the promise rejects with the signal's reason. */
  signal: AbortSignal;
  /** Called once the command runs, with the client's terminal id when it runs in a client terminal. */
  onStarted?: (terminalId: string | undefined) => void | Promise<void>;
}

/**
 * Where the tools act. Two implementations: through the client (ACP `fs/*`, `terminal/*`) when it
 * advertised them, and local (Node's fs and child_process, confined to {@link WorkspaceRoots}).
 * Paths given to these methods are absolute and already checked by the caller.
 */
export interface ToolBackend {
  /** `client` or `local` for each capability: where reads, writes and commands go. */
  readonly where: { read: 'client' | 'local'; write: 'client' | 'local'; terminal: 'client' | 'local' };
  /**
   * The file's whole text, or with `range` the lines `range.line` (1-based, default 1) to
   * `line + limit - 1` (default: to the end), as ACP `fs/read_text_file` takes `line` and `limit`.
   * @throws {ToolError} missing file, a directory, a binary file, outside the workspace (local)
   */
  readTextFile(path: string, signal: AbortSignal, range?: LineRange): Promise<string>;
  /**
   * Writes the whole text (creating parent directories locally).
   * @throws {ToolError} outside the workspace (local), the client refusing
   */
  writeTextFile(path: string, content: string, signal: AbortSignal): Promise<void>;
  /**
   * Whether the file exists, asked without reading it (so a client is never asked for a file that
   * is not there, which some show the user as an error): `true` or `false` when known,
   * `undefined` when this backend cannot tell (then read it to find out). Absent: cannot tell.
   */
  fileExists?(path: string, signal: AbortSignal): Promise<boolean | undefined>;
  /**
   * Removes a file (for `/undo` of a file a turn created). ACP has no `fs/*` method for it, so
   * this is always the local disk. Absent: files cannot be removed.
   * @throws {ToolError} outside the workspace, a directory, no permission; a missing file is no error.
   */
  deleteFile?(path: string, signal: AbortSignal): Promise<void>;
  /**
   * Runs a shell command line. A client terminal is released after `release()` is called on the
   * returned handle (the caller first sends the `tool_call_update` that embeds it).
   */
  runCommand(command: string, options: CommandOptions): Promise<CommandResult & { release: () => Promise<void> }>;
}
