/**
 * One tool call as the client sees it: announced as `tool_call` (pending, with `rawInput`),
 * permission asked when the mode says so (`session/request_permission`, reusing the call's id),
 * `in_progress` while it runs (a client terminal embedded as soon as it exists), then `completed`
 * or `failed` with its content; a client terminal is released only after that last update.
 *
 * Arguments are checked once (`tools/calls/check-arguments.ts`), the permission decided by
 * `tools/policy/permission.ts`, the updates built by `tools/present/to-update.ts`; this file sends and runs.
 *
 * Sources: ACP tool calls https://agentclientprotocol.com/protocol/v1/tool-calls and terminals
 * https://agentclientprotocol.com/protocol/v1/terminals (release a terminal after the update that
 * embeds it).
 */
import type { AgentContext, PlanEntry, RequestPermissionResponse, ToolCallContent, SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import type { Logger } from '../log.js';
import type { AnswerToolCall } from './model-request.js';
import type { ToolResultRecord } from '../sessions/session-records.js';
import type { AnyBuiltinTool } from '../tools/builtin/tool-module.js';
import { executeBuiltin } from '../tools/builtin/execute-builtin.js';
import { checkArguments, unknownToolError, type CheckedArguments } from '../tools/calls/check-arguments.js';
import { cutOffMessage } from '../tools/calls/repair-arguments.js';
import { raceAbort } from '../tools/backends/client-backend.js';
import { findBuiltinTool, presentToolCall } from '../tools/builtin/registry.js';
import { parseMcpArguments } from '../tools/mcp/mcp-arguments.js';
import type { McpServers } from '../tools/mcp/mcp-servers.js';
import type { McpToolDescriptor } from '../tools/mcp/mcp-tools.js';
import type { McpElicit } from '../tools/mcp/mcp-elicitation.js';
import type { FetchLimits } from '../tools/fetch/fetch-page.js';
import type { SearchOptions } from '../tools/search/run-search.js';
import { capForModel } from '../tools/present/output-cap.js';
import {
  builtinSubject,
  decidePermission,
  DECLINED,
  mcpSubject,
  permissionOptions,
  readPermissionOutcome,
  refusal,
  type PermissionSubject,
  type SessionMode,
} from '../tools/policy/permission.js';
import { textContent as text } from '../tools/present/present-args.js';
import { announceUpdate, finalUpdate, progressUpdate, type ToolCallAnnouncement } from '../tools/present/to-update.js';
import type { ToolBackend, ToolOutcome, ToolPresentation, WorkspaceRoots } from '../tools/tool-types.js';
import { parsePlanArguments, PLAN_TOOL_NAME } from '../tools/plan/plan-tool.js';
import { resolveToolName } from '../tools/calls/tool-name-resolve.js';
import { PERMISSION_CANCELLED, PLAN_PRESENTATION, runPlanCall, type PlanHooks } from './plan-mode.js';

/** What running the calls of one session needs. */
export interface ToolCallDeps {
  sessionId: string;
  client: AgentContext;
  send: (updates: SessionUpdate[]) => Promise<void>;
  backend: ToolBackend;
  roots: WorkspaceRoots;
  mode: SessionMode;
  /** Remembered `allow_always` / `reject_always` choices by permission key. */
  remembered: Readonly<Record<string, 'allow' | 'reject'>>;
  /** Keeps a remembered choice (in the session, saved with it). */
  remember: (key: string, choice: 'allow' | 'reject') => Promise<void>;
  /** The session's MCP servers, and the MCP tools offered in this request by model-facing name. */
  mcp?: { servers: McpServers; tools: ReadonlyMap<string, McpToolDescriptor> } | undefined;
  /** How an MCP server's question during the call `toolCallId` reaches the user; absent: declined. */
  elicit?: ((toolCallId: string) => McpElicit) | undefined;
  /** The plan tool's hooks; absent: the plan tool is not offered. */
  plan?: PlanHooks | undefined;
  /** Limits of `fetch_url` (time, the model's share of a page). */
  fetch?: FetchLimits | undefined;
  /** How `search_files` runs (`OPENAI_ACP_RIPGREP`, its time budget). */
  search?: SearchOptions | undefined;
  /** Every tool name offered in this request (for the "unknown tool" answer). */
  offered: readonly string[];
  logger: Logger;
  signal: AbortSignal;
}

/** Said to the model for a call cancelled while it waited for permission or ran. */
export const CANCELLED = 'Cancelled by the user before it finished; anything it did may be partly done.';

let counter = 0;
/** A `toolCallId` unique in this process (and, with the time, across restarts of a session). */
function newToolCallId(): string {
  return `call-${Date.now().toString(36)}-${(++counter).toString(36)}`;
}

/**
 * Runs one call end to end and returns its record (what the model is told is `forModel`), with
 * the images an MCP tool returned (not part of the record).
 * Never rejects for a tool's own failure (bad arguments, unknown tool, a refusal, an error of
 * the tool): those are failed results. A call cancelled while asking or running (the signal
 * aborts) is also a failed result, {@link CANCELLED} to the model, shown `failed` to the client
 * (its terminal freed), so the saved step keeps its `toolCallId` for a replay.
 * A name with chat-template text leaked into it, or spelled another way (`readFile`), runs the
 * offered tool it stands for (`tools/calls/tool-name-resolve.ts`; MCP tools only leak-stripped).
 * @param cutOff - the answer stopped at its token limit while writing this call: it is not run,
 *   the model is told to write it shorter.
 */
export async function runToolCall(
  sent: AnswerToolCall,
  deps: ToolCallDeps,
  cutOff = false,
): Promise<ToolResultRecord & { images?: ToolOutcome['images']; endsTurn?: true }> {
  const toolCallId = newToolCallId();
  const resolved = resolveToolName(sent.name, deps.offered, new Set(deps.mcp?.tools.keys() ?? []));
  const call = resolved ? { ...sent, name: resolved.name } : sent;
  const mcpTool = deps.mcp?.tools.get(call.name);
  const plan = deps.plan && call.name === PLAN_TOOL_NAME ? deps.plan : undefined;
  const builtin = mcpTool || plan ? undefined : findBuiltinTool(call.name);
  // Arguments are checked once: built-ins against their schema, MCP tools take any JSON object (their server checks).
  const parsed: CheckedArguments = plan
    ? cutOff
      ? { ok: false, error: cutOffMessage(call.name) }
      : planArguments(call.arguments)
    : mcpTool
      ? withNotesList(parseMcpArguments(call.name, call.arguments, cutOff))
      : builtin
        ? checkArguments(builtin, call.arguments, cutOff)
        : { ok: false, error: unknownToolError(call.name, deps.offered) };
  const args = parsed.ok ? parsed.args : {};
  const notes = [...(resolved && resolved.how !== 'exact' ? [`the tool is named "${resolved.name}"`] : []), ...(parsed.ok ? parsed.notes : [])];
  const presentation: ToolPresentation = plan
    ? PLAN_PRESENTATION
    : mcpTool
      ? { title: mcpTool.title, kind: mcpTool.kind }
      : presentToolCall(call.name, args, deps.roots);
  const rawInput = parsed.ok ? args : call.arguments;
  const record = (status: 'completed' | 'failed', outcome: Pick<ToolOutcome, 'content' | 'forModel'>): ToolResultRecord => ({
    id: call.id,
    toolCallId,
    title: presentation.title,
    kind: presentation.kind,
    status,
    rawInput,
    content: outcome.content.map(withoutTerminal(outcome.forModel)),
    ...(presentation.locations ? { locations: presentation.locations } : {}),
    forModel: outcome.forModel,
  });
  // A tool may complete its preview from the workspace (write_file: the text it replaces) before the permission question.
  const shown = parsed.ok && builtin?.presentFromWorkspace ? await builtin.presentFromWorkspace(args, presentation, deps) : presentation;
  const announce = announceUpdate(toolCallId, shown, rawInput);
  // The announcement goes out with the call's next update (its `in_progress`, or its failure), in
  // one send: the checks between them are pure, so the client sees the same messages in the same order.
  let unannounced = true;
  const send = (updates: SessionUpdate[]) => {
    if (!unannounced) return deps.send(updates);
    unannounced = false;
    return deps.send([announce, ...updates]);
  };

  const finish = async (outcome: ToolOutcome & { release?: () => Promise<void> }) => {
    try {
      await send([finalUpdate(toolCallId, outcome)]);
    } finally {
      await outcome.release?.();
    }
    const status = outcome.failed ? 'failed' : 'completed';
    return outcome.images ? { ...record(status, outcome), images: outcome.images } : record(status, outcome);
  };
  const fail = (message: string) => finish({ failed: true, forModel: message, content: [text(message)] });
  // The connection may already be going away on a cancel: the record is kept even if the update is lost.
  const cancelled = () =>
    finish({ failed: true, forModel: CANCELLED, content: [text('Cancelled.')] }).catch(() =>
      record('failed', { forModel: CANCELLED, content: [text('Cancelled.')] }),
    );

  // Unknown tools and bad arguments go back to the model with the tool's parameters (and, for a
  // call read from text, how to write it).
  if (sent.refusal && parsed.ok) return fail(withHint(`${call.name}: this call cannot run as written: ${sent.refusal}.`, sent.hint));
  if (!parsed.ok) return fail(withHint(parsed.error, sent.hint));

  const subject: PermissionSubject = mcpTool
    ? mcpSubject(mcpTool)
    : builtin
      ? builtinSubject(builtin, args, deps.roots)
      : { permission: 'reads', key: call.name };
  const decision = decidePermission(deps.mode, deps.remembered, subject);
  if (decision === 'reject') return fail(refusal(deps.mode));
  if (decision === 'ask') {
    await send([]);
    let allowed: boolean;
    try {
      allowed = await askPermission(announce, subject, deps);
    } catch (error) {
      if (deps.signal.aborted) return cancelled();
      // The turn is over: the call shown cancelled (not declined), and no further model request.
      if (error === PERMISSION_CANCELLED) return { ...(await cancelled()), endsTurn: true };
      throw error;
    }
    if (!allowed) return fail(DECLINED);
  }

  await send([progressUpdate(toolCallId)]);
  try {
    const { sessionUpdate: _announced, ...toolCall } = announce;
    const outcome = plan
      ? await runPlanCall(args['entries'] as PlanEntry[], toolCall, { ...deps, plan })
      : mcpTool
        ? await runMcpTool(mcpTool, args, deps, toolCallId)
        : await runBuiltin(builtin!, args, toolCallId, deps);
    return await finish(withNotes(outcome, notes));
  } catch (error) {
    if (deps.signal.aborted) return cancelled();
    // The plan's "start?" question answered `cancelled`: the turn is over, as for a tool's permission.
    if (error === PERMISSION_CANCELLED) return { ...(await cancelled()), endsTurn: true };
    deps.logger.error('tool call failed with an internal error', { tool: call.name, error: (error as Error)?.stack ?? String(error) });
    return fail(`The tool failed with an internal error of openai-acp: ${(error as Error)?.message ?? String(error)}`);
  }
}

/** A refusal with the way to write the call after it, when there is one. */
function withHint(error: string, hint: string | undefined): string {
  return hint ? `${error}\n${hint}` : error;
}

/** MCP arguments in the shape of the built-in check (a repair's note kept; the server checks the rest). */
function withNotesList(parsed: ReturnType<typeof parseMcpArguments>): CheckedArguments {
  return parsed.ok ? { ok: true, args: parsed.args, notes: parsed.notes ?? [] } : parsed;
}

/** The plan call's arguments in the shape of the other tools' checks. */
function planArguments(raw: string): CheckedArguments {
  const parsed = parsePlanArguments(raw);
  return parsed.ok ? { ok: true, args: { entries: parsed.entries }, notes: [] } : parsed;
}

/** The outcome with what the argument check changed or ignored told to the model after the result. */
function withNotes<T extends ToolOutcome>(outcome: T, notes: readonly string[]): T {
  return notes.length === 0 ? outcome : { ...outcome, forModel: `${outcome.forModel}\n\n(Note: ${notes.join('; ')}.)` };
}

/**
 * Asks the user about the call `announce` describes. A client that answers with an error (or does not implement the method) counts as
 * a refusal, with one log line; a cancelled turn rejects with the signal's reason, and a
 * `cancelled` outcome with {@link PERMISSION_CANCELLED}.
 */
async function askPermission(announce: ToolCallAnnouncement, subject: PermissionSubject, deps: ToolCallDeps): Promise<boolean> {
  // The call as announced: the same fields the client was just sent.
  const { sessionUpdate: _announced, ...toolCall } = announce;
  let answer: RequestPermissionResponse;
  try {
    answer = await raceAbort(
      deps.client.request('session/request_permission', { sessionId: deps.sessionId, toolCall, options: permissionOptions(subject.scope ?? subject.key) }),
      deps.signal,
    );
  } catch (error) {
    if (deps.signal.aborted) throw deps.signal.reason;
    deps.logger.warn('the client could not ask for permission; the tool call counts as declined', { error: (error as Error)?.message ?? String(error) });
    return false;
  }
  if (answer.outcome?.outcome === 'cancelled') throw PERMISSION_CANCELLED;
  const read = readPermissionOutcome(answer.outcome);
  if (read.remember) await deps.remember(subject.key, read.remember);
  return read.allowed;
}

async function runBuiltin(tool: AnyBuiltinTool, args: Record<string, unknown>, toolCallId: string, deps: ToolCallDeps) {
  return executeBuiltin(tool, args, {
    backend: deps.backend,
    roots: deps.roots,
    signal: deps.signal,
    search: deps.search,
    fetch: deps.fetch,
    runsUnasked: (other) => decidePermission(deps.mode, deps.remembered, builtinSubject(tool, other, deps.roots)) === 'allow',
    onTerminal: (terminalId) => deps.send([progressUpdate(toolCallId, terminalId)]),
  });
}

async function runMcpTool(tool: McpToolDescriptor, args: Record<string, unknown>, deps: ToolCallDeps, toolCallId: string): Promise<ToolOutcome> {
  const result = await deps.mcp!.servers.call(tool.name, args, { signal: deps.signal, elicit: deps.elicit?.(toolCallId) });
  const capped = capForModel(result.text).text;
  const outcome: ToolOutcome = { failed: result.isError, forModel: capped, content: result.content.map((block) => ({ type: 'content', content: block })) };
  if (result.images.length > 0) outcome.images = result.images;
  return outcome;
}

/** Stored content: a terminal (released, so a replay could not show it) becomes the output text. */
function withoutTerminal(forModel: string) {
  return (content: ToolCallContent): ToolCallContent => (content.type === 'terminal' ? text(forModel) : content);
}
