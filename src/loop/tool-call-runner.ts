/**
 * One tool call as the client sees it: announced as `tool_call` (pending, with `rawInput`),
 * permission asked when the mode says so (`session/request_permission`, reusing the call's id),
 * `in_progress` while it runs (a client terminal embedded as soon as it exists), then `completed`
 * or `failed` with its content; a client terminal is released only after that last update.
 *
 * Sources: ACP tool calls https://agentclientprotocol.com/protocol/v1/tool-calls and
 * `../shared/TOOLS-NOTES.md` (release after the embedding update; only spec option kinds).
 */
import type { AgentContext, PlanEntry, RequestPermissionResponse, SessionUpdate, ToolCallContent } from '@agentclientprotocol/sdk/unstable';
import type { Logger } from '../log.js';
import type { ToolCallResult } from '../openai/turn-accumulator.js';
import type { ToolResultRecord } from '../sessions/session-records.js';
import { parseToolArguments } from '../tools/arguments.js';
import { executeBuiltin } from '../tools/builtin-tools.js';
import { raceAbort } from '../tools/client-backend.js';
import { builtinTool, isBuiltinToolName } from '../tools/definitions.js';
import { parseMcpArguments } from '../tools/mcp/mcp-arguments.js';
import type { McpServers } from '../tools/mcp/mcp-servers.js';
import type { McpToolDescriptor } from '../tools/mcp/mcp-tools.js';
import type { FetchLimits } from '../tools/fetch/fetch-url.js';
import type { SearchOptions } from '../tools/local/search-files.js';
import { capForModel } from '../tools/output-cap.js';
import { alwaysScope, decidePermission, permissionKey, permissionOptions, readPermissionOutcome, type PermissionSubject, type SessionMode } from '../tools/permission.js';
import { presentToolCall, textContent as text } from '../tools/present.js';
import { outcomeToUpdate } from '../tools/to-update.js';
import type { ToolBackend, ToolOutcome, ToolPresentation, WorkspaceRoots } from '../tools/tool-types.js';
import { isWithin, resolveToolPath } from '../tools/workspace.js';
import { parsePlanArguments, PLAN_TOOL_NAME } from '../tools/plan-tool.js';
import { PLAN_PRESENTATION, runPlanCall, type PlanHooks } from './plan-mode.js';

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

/** Said to the model when the user declines a call. */
export const DECLINED = 'The user declined this tool call, so it was not run. Do not try it again unless the user asks; continue without it, or ask the user how to proceed.';

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
 */
export async function runToolCall(call: ToolCallResult, deps: ToolCallDeps): Promise<ToolResultRecord & { images?: ToolOutcome['images'] }> {
  const toolCallId = newToolCallId();
  const mcpTool = deps.mcp?.tools.get(call.name);
  const plan = deps.plan && call.name === PLAN_TOOL_NAME ? deps.plan : undefined;
  // The built-in checks know only the built-in names: MCP tools take any JSON object.
  const parsed = plan ? planArguments(call.arguments) : mcpTool ? parseMcpArguments(call.name, call.arguments) : parseToolArguments(call.name, call.arguments, deps.offered);
  const args = parsed.ok ? (parsed.args as Record<string, unknown>) : {};
  const presentation: ToolPresentation = plan ? PLAN_PRESENTATION : mcpTool ? { title: mcpTool.title, kind: mcpTool.kind } : presentToolCall(call.name, args, deps.roots);
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
  const announce: SessionUpdate & { sessionUpdate: 'tool_call' } = { sessionUpdate: 'tool_call', toolCallId, title: presentation.title, kind: presentation.kind, status: 'pending', rawInput };
  if (presentation.locations) announce.locations = presentation.locations;
  if (presentation.content) announce.content = presentation.content;
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
      await send([{ sessionUpdate: 'tool_call_update', ...outcomeToUpdate(toolCallId, outcome) }]);
    } finally {
      await outcome.release?.();
    }
    const status = outcome.failed ? 'failed' : 'completed';
    return outcome.images ? { ...record(status, outcome), images: outcome.images } : record(status, outcome);
  };
  const fail = (message: string) => finish({ failed: true, forModel: message, content: [text(message)] });
  // The connection may already be going away on a cancel: the record is kept even if the update is lost.
  const cancelled = () => finish({ failed: true, forModel: CANCELLED, content: [text('Cancelled.')] }).catch(() => record('failed', { forModel: CANCELLED, content: [text('Cancelled.')] }));

  // Unknown tools and bad arguments go back to the model with the tool's parameters.
  if (!parsed.ok) return fail(parsed.error);
  if (!mcpTool && !plan && !isBuiltinToolName(call.name)) return fail(`Unknown tool "${call.name}". Available tools: ${deps.offered.join(', ')}.`);

  const subject = permissionSubject(call.name, args, mcpTool, deps.roots);
  const decision = decidePermission(deps.mode, deps.remembered, subject);
  if (decision === 'reject') return fail(MODE_REFUSALS[deps.mode] ?? DECLINED);
  if (decision === 'ask') {
    await send([]);
    let allowed: boolean;
    try {
      allowed = await askPermission(announce, subject.key, deps);
    } catch (error) {
      if (deps.signal.aborted) return cancelled();
      throw error;
    }
    if (!allowed) return fail(DECLINED);
  }

  await send([{ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' }]);
  try {
    const { sessionUpdate: _announced, ...toolCall } = announce;
    const outcome = plan
      ? await runPlanCall(args['entries'] as PlanEntry[], toolCall, { ...deps, plan })
      : mcpTool
        ? await runMcpTool(mcpTool, args, deps)
        : await runBuiltin(call.name, args, toolCallId, deps);
    return await finish(outcome);
  } catch (error) {
    if (deps.signal.aborted) return cancelled();
    deps.logger.error('tool call failed with an internal error', { tool: call.name, error: (error as Error)?.stack ?? String(error) });
    return fail(`The tool failed with an internal error of openai-acp: ${(error as Error)?.message ?? String(error)}`);
  }
}

/** Why a mode refuses edits and commands, said to the model (no permission is asked). */
const MODE_REFUSALS: Partial<Record<SessionMode, string>> = {
  'read-only': 'The session is in read-only mode: edits and commands are not allowed. Tell the user what you would change instead.',
  plan: 'The session is in plan mode: edits and commands are not allowed until the user approves a plan. Explore with the read and search tools, then write your plan with update_plan.',
};

/** The plan call's arguments in the shape of the other tools' checks. */
function planArguments(raw: string): { ok: true; args: { entries: PlanEntry[] } } | { ok: false; error: string } {
  const parsed = parsePlanArguments(raw);
  return parsed.ok ? { ok: true, args: { entries: parsed.entries } } : parsed;
}

/** What the call needs permission for. */
function permissionSubject(name: string, args: Record<string, unknown>, mcpTool: McpToolDescriptor | undefined, roots: WorkspaceRoots): PermissionSubject {
  if (mcpTool) return { mutates: 'execute', key: permissionKey(name, args, { server: mcpTool.server, tool: mcpTool.tool }), readOnlyHint: mcpTool.readOnly };
  const mutates = isBuiltinToolName(name) ? builtinTool(name).mutates : false;
  const subject: PermissionSubject = { mutates, key: permissionKey(name, args) };
  if (mutates === 'edit' && typeof args['path'] === 'string') subject.insideCwd = isWithin(resolveToolPath(args['path'], roots), roots.cwd);
  return subject;
}

/**
 * Asks the user about the call `announce` describes. A client that answers with an error (or does not implement the method) counts as
 * a refusal, with one log line; a cancelled turn rejects with the signal's reason.
 */
async function askPermission(announce: SessionUpdate & { sessionUpdate: 'tool_call' }, key: string, deps: ToolCallDeps): Promise<boolean> {
  // The call as announced: the same fields the client was just sent.
  const { sessionUpdate: _announced, ...toolCall } = announce;
  let answer: RequestPermissionResponse;
  try {
    answer = await raceAbort(deps.client.request('session/request_permission', { sessionId: deps.sessionId, toolCall, options: permissionOptions(alwaysScope(key)) }), deps.signal);
  } catch (error) {
    if (deps.signal.aborted) throw deps.signal.reason;
    deps.logger.warn('the client could not ask for permission; the tool call counts as declined', { error: (error as Error)?.message ?? String(error) });
    return false;
  }
  const read = readPermissionOutcome(answer.outcome);
  if (read.remember) await deps.remember(key, read.remember);
  return read.allowed;
}

async function runBuiltin(name: string, args: Record<string, unknown>, toolCallId: string, deps: ToolCallDeps) {
  if (!isBuiltinToolName(name)) throw new Error(`not a built-in tool: ${name}`);
  return executeBuiltin(name, args, {
    backend: deps.backend,
    roots: deps.roots,
    signal: deps.signal,
    search: deps.search,
    // A redirect to another host goes on only where a fetch from that host would run unasked.
    fetch: { ...deps.fetch, mayFollow: (url) => decidePermission(deps.mode, deps.remembered, { mutates: 'fetch', key: permissionKey('fetch_url', { url: url.href }) }) === 'allow' },
    onTerminal: (terminalId) => deps.send([{ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress', content: [{ type: 'terminal', terminalId }] }]),
  });
}

async function runMcpTool(tool: McpToolDescriptor, args: Record<string, unknown>, deps: ToolCallDeps): Promise<ToolOutcome> {
  const result = await deps.mcp!.servers.call(tool.name, args, { signal: deps.signal });
  const capped = capForModel(result.text).text;
  const outcome: ToolOutcome = { failed: result.isError, forModel: capped, content: result.content.map((block) => ({ type: 'content', content: block })) };
  if (result.images.length > 0) outcome.images = result.images;
  return outcome;
}

/** Stored content: a terminal (released, so a replay could not show it) becomes the output text. */
function withoutTerminal(forModel: string) {
  return (content: ToolCallContent): ToolCallContent => (content.type === 'terminal' ? text(forModel) : content);
}
