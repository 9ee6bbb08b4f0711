/**
 * The door of `tools/`: everything the layers above use of it is exported here, and nothing
 * outside `tools/` imports a file behind it (`test/architecture.test.ts` holds that).
 *
 * - The contract (`tool.ts`): `Tool`, its outcome and presentation, `runTool`.
 * - A turn's tools: the built-ins bound to a session (`builtinTools`, with their `toolSettings`),
 *   MCP tools (`mcpTool`), the plan tool (`planTool`), the tools of one request and the one
 *   resolution of a call's name (`OfferedTools`), and the reader of calls written as text
 *   (`textCallReader`, `opensLikeCall`).
 * - Permission (`policy/`), the `tool_call` updates (`present/`), the backends (`backends/`), the
 *   MCP servers of a session and their prompts (`mcp/`), and what `/undo` and `doctor` need.
 * - How tool processes run (`sandbox/`): the environment policy and the bubblewrap sandbox, set
 *   once by the entry points (`configureToolProcesses`).
 */
export {
  checkpointingBackend,
  readBefore,
} from './backends/checkpoint-backend.js';
export { type ClientToolCapabilities, createClientBackend, raceAbort, toolCapabilities } from './backends/client-backend.js';
export { createLocalBackend } from './backends/local-backend.js';
export type { ToolBackend } from './backends/tool-backend.js';
export { confine, pinWorkspaceRoots, relativeForTitle } from './backends/workspace.js';
export { builtinTools } from './builtin/builtin-tools.js';
export { BUILTIN_TOOL_NAMES, builtinCutNote as toolCutNote } from './builtin/registry.js';
export { type ToolSettings, toolSettings } from './builtin/tool-context.js';
export { type CallTarget, OfferedTools } from './calls/offered-tools.js';
export { MAX_CALLS_PER_ANSWER } from './calls/text/read-text-calls.js';
export { opensLikeCall } from './calls/text/text-call-screen.js';
export { type ReadCall, textCallReader } from './calls/text/text-calls.js';
export { acpElicitation, type ElicitationModes } from './mcp/mcp-elicitation.js';
export { type McpPromptInfo, promptArguments, promptCommandName, promptHint, promptMessagesToContent } from './mcp/mcp-prompts.js';
export { closeAllMcp, type McpServers, startMcpServers } from './mcp/mcp-servers.js';
export { type OperatorAllowances, refusedMcpServer } from './mcp/mcp-allow.js';
export { type AddressPolicy, parseRange } from './fetch/address-guard.js';
export { mcpTool } from './mcp/mcp-tool.js';
export type { McpToolDescriptor } from './mcp/mcp-tools.js';
export { planText, planTool } from './policy/plan-tool.js';
export { DEFAULT_MODE, isSessionMode, MODE_TABLE, SESSION_MODES, type SessionMode } from './policy/mode-table.js';
export { DECLINED, decidePermission, permissionOptions, readPermissionOutcome, refusal } from './policy/permission.js';
export { textContent } from './present/present-args.js';
export { announceUpdate, finalUpdate, progressUpdate, type ToolCallAnnouncement } from './present/to-update.js';
export { dropReason } from './sandbox/env-policy.js';
export { probeSandbox } from './sandbox/sandbox-probe.js';
export { addToolSecrets, configureToolProcesses, hideFromToolProcesses, sandboxReport } from './sandbox/tool-processes.js';
export { findRipgrep } from './search/search-rg.js';
export {
  type ChatToolDefinition,
  failedOutcome,
  type PermissionSubject,
  runTool,
  type Tool,
  ToolError,
  type ToolOutcome,
  type WorkspaceRoots,
  type UpdateSink,
} from './tool.js';
