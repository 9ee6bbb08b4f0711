/**
 * The shapes shared by the tool layer: what a tool call asks for, what it gives back to the model
 * and to the client, and the two places tools run (through the client's `fs/*` and `terminal/*`,
 * or locally, confined to the session's workspace).
 *
 * Sources: ACP tool calls https://agentclientprotocol.com/protocol/v1/tool-calls (`ToolKind`,
 * `ToolCallContent`), file system https://agentclientprotocol.com/protocol/v1/file-system and
 * terminals https://agentclientprotocol.com/protocol/v1/terminals.
 */
import type { ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk/unstable';

/**
 * A tool failure meant for the model: its `message` is given back as the tool's result (and the
 * call is shown `failed`); the loop goes on. Anything else thrown by a tool is a bug of ours.
 */
export class ToolError extends Error {
  override readonly name = 'ToolError';
  /**
   * What kind of failure, for callers that act on it (write_file treats `not_found` as "new file",
   * edit_file creates a missing file from an empty `old_string`). @defaultValue 'other'
   */
  readonly code: ToolErrorCode;
  constructor(message: string, code: ToolErrorCode = 'other', options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

/** {@link ToolError.code}: a missing file, a path outside the workspace, a binary or too large file, a directory given as a file, anything else. */
export type ToolErrorCode = 'not_found' | 'outside_workspace' | 'binary' | 'too_large' | 'is_directory' | 'other';

/** The directories local tools may touch: the session's `cwd` and its `additionalDirectories`, all absolute. */
export interface WorkspaceRoots {
  /** The session's working directory (absolute). Relative paths resolve against it. */
  cwd: string;
  /** Further absolute directories the client allowed (`additionalDirectories`); may be empty. */
  extra: readonly string[];
}

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

/** What a finished tool call gives back. */
export interface ToolOutcome {
  /** True when the call failed (the client shows `failed`; the model reads `forModel` as the error). */
  failed: boolean;
  /** The text given to the model as the `tool` message (already capped). */
  forModel: string;
  /** What the client is shown (`tool_call_update.content`): not capped. */
  content: ToolCallContent[];
  /** Extra locations to show (e.g. the lines read). */
  locations?: ToolCallLocation[];
  /** `tool_call_update.rawOutput`. */
  rawOutput?: Record<string, unknown>;
  /** Image parts for models that take images (MCP tools). */
  images?: { data: string; mimeType: string }[];
}

/** How a tool call is shown before it runs: the `tool_call` fields. */
export interface ToolPresentation {
  title: string;
  kind: ToolKind;
  locations?: ToolCallLocation[];
  content?: ToolCallContent[];
}
