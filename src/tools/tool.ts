/**
 * The tool contract: all the agent loop knows of a tool. A {@link Tool} has a name and the JSON
 * Schema `parameters` the model reads, checks a call's raw arguments (`check`), says what the call
 * needs permission for (`permission`), how the client shows it (`present`) and runs it (`run`).
 * Built-in tools (`builtin/builtin-tools.ts`), MCP tools (`mcp/mcp-tool.ts`), the plan tool
 * (`policy/plan-tool.ts`) and a name nobody offered (`calls/offered-tools.ts`) are its
 * implementations, so the tool-call runner never asks which kind it has.
 *
 * Sources: ACP tool calls https://agentclientprotocol.com/protocol/v1/tool-calls (`ToolKind`,
 * `ToolCallContent`, `tool_call` fields); the request's `tools` entries
 * https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools.
 */
import type { SessionUpdate, ToolCallContent, ToolCallLocation, ToolCallUpdate, ToolKind } from '@agentclientprotocol/sdk/unstable';

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
  /** Frees what the call holds in the client (a terminal); called after the `tool_call_update` that embeds it was sent. */
  release?: () => Promise<void>;
}

/** How a tool call is shown before it runs: the `tool_call` fields. */
export interface ToolPresentation {
  title: string;
  kind: ToolKind;
  locations?: ToolCallLocation[];
  content?: ToolCallContent[];
}

/**
 * What a tool does, as the session modes see it: `reads` (never asks), `edits` (changes files),
 * `runs` (runs commands; MCP tools too), `fetches` (reaches the network, changes nothing here).
 */
export type PermissionClass = 'reads' | 'edits' | 'runs' | 'fetches';

/** What a call needs permission for (decided by `policy/permission.ts`). */
export interface PermissionSubject {
  /** The tool's permission class (MCP tools are `runs`). */
  permission: PermissionClass;
  /** The key remembered choices are stored under (a tool's `rememberedAs`, else its name; `mcp:<server>/<tool>`). */
  key: string;
  /** What "always" covers, in words for the option names. @defaultValue the key */
  scope?: string;
  /** True when every path the call writes is inside the session's cwd (edits only). */
  insideCwd?: boolean;
  /** True for MCP tools annotated `readOnlyHint: true`: they do not ask in `accept-edits`. */
  readOnlyHint?: boolean;
}

/** Checked arguments, and notes for the model on what was read differently; or the message for the model. */
export type CheckedArguments = { ok: true; args: Record<string, unknown>; notes: string[] } | { ok: false; error: string };

/** The request's JSON Schema of a tool's arguments: an object schema with `properties` and `required` listed. */
export interface ToolParameters {
  type: 'object';
  properties: Record<string, unknown>;
  required: string[];
  [keyword: string]: unknown;
}

/** One entry of the Chat Completions request's `tools` array. */
export interface ChatToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: ToolParameters };
}

/**
 * The update sink: delivers `session/update`s to the client that sent the prompt, in order
 * (ACP v1 `session/update`, https://agentclientprotocol.com/protocol/v1/prompt-turn). Resolves once
 * they are written; rejects when the connection is gone.
 */
export type UpdateSink = (updates: SessionUpdate[]) => Promise<void>;

/** What a tool's `run` is given by the runner of the call. */
export interface ToolRunContext {
  /** The ACP `toolCallId` of the call. */
  toolCallId: string;
  /** The call as announced to the client (the `tool_call` fields), for a question about it. */
  toolCall: ToolCallUpdate;
  /** The turn's signal: aborting rejects the call with its reason (a running command is killed). */
  signal: AbortSignal;
  /** Sends updates beside the call's own (the plan tool's `plan`). */
  send: UpdateSink;
  /** Embeds a client terminal in the call as soon as the command runs in it. */
  onTerminal: (terminalId: string) => Promise<void>;
  /** Whether a call of this same tool with `args` would run without asking (the mode and remembered choices). */
  runsUnasked: (args: Record<string, unknown>) => boolean;
}

/** One tool as the agent loop offers it and runs its calls. */
export interface Tool {
  /** The function name the model calls, `^[a-zA-Z0-9_-]{1,64}$`. */
  readonly name: string;
  /** The function `description` the model reads. */
  readonly description: string;
  /** The request's `parameters` for it. */
  readonly parameters: ToolParameters;
  /**
   * Reads a call's raw arguments (the `function.arguments` text, or a value already parsed) into
   * the arguments `run` takes, through the one pipeline (`calls/check-arguments.ts`).
   * @param cutOff - the answer stopped at its length limit while writing this call: refused.
   */
  check(raw: unknown, cutOff: boolean): CheckedArguments;
  /** What a call with `args` needs permission for. */
  permission(args: Record<string, unknown>): PermissionSubject;
  /** The `tool_call` fields. `args` are checked when the check passed, else `{}`: a plainer title, never a throw. Pure. */
  present(args: Record<string, unknown>): ToolPresentation;
  /** The presentation completed from the workspace before the permission question (write_file: the text it replaces). Never throws. */
  presentFromWorkspace?(args: Record<string, unknown>, shown: ToolPresentation, signal: AbortSignal): Promise<ToolPresentation>;
  /**
   * Runs a call with checked arguments.
   * @throws {ToolError} anything the model should hear about; the signal's reason when aborted;
   *   anything else is a bug of ours.
   */
  run(args: Record<string, unknown>, ctx: ToolRunContext): Promise<ToolOutcome>;
}

/** The request `tools` entry of a tool. */
export function chatToolDefinition(tool: Tool): ChatToolDefinition {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}

/**
 * Runs a checked call of `tool`, turning a {@link ToolError} into a failed outcome for the model.
 * @throws the signal's reason when `ctx.signal` aborts (whatever failed on the way out); any error
 *   that is not a ToolError (a bug, or the client connection failing).
 */
export async function runTool(tool: Tool, args: Record<string, unknown>, ctx: ToolRunContext): Promise<ToolOutcome> {
  try {
    ctx.signal.throwIfAborted();
    return await tool.run(args, ctx);
  } catch (error) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    if (error instanceof ToolError) return failedOutcome(error.message);
    throw error;
  }
}

/** A failed outcome carrying `message` to the model and to the client. */
export function failedOutcome(message: string): ToolOutcome {
  return { failed: true, forModel: message, content: [{ type: 'content', content: { type: 'text', text: message } }] };
}
