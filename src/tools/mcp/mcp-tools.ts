/**
 * The MCP tools of a session as the agent loop offers them to the model: model-facing names,
 * parameters, ACP kind and title. Pure; the live lists come from {@link McpServers.tools}.
 */
import type { McpToolRef } from './mcp-names.js';
import { mcpToolNames } from './mcp-names.js';
import type { ToolParameters } from '../tool.js';
import { toFunctionParameters } from './mcp-schema.js';

/** The tool behaviour hints of MCP (spec 2025-06-18 `ToolAnnotations`); all optional, untrusted. */
interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** One tool as a server lists it (the fields of MCP's `Tool` this layer uses). */
export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
  annotations?: McpToolAnnotations;
}

/** The ACP tool kinds an MCP tool can get (a subset of ACP's `ToolKind`). */
type McpToolKind = 'read' | 'edit' | 'fetch' | 'other';

/** One MCP tool ready for the model's `tools` list and the client's `tool_call`. */
export interface McpToolDescriptor {
  /** Model-facing function name, `<server>__<tool>` made valid and unique (see mcp-names.ts). */
  name: string;
  /** The server's name from `mcpServers`. */
  server: string;
  /** The tool's own name, as sent in `tools/call`. */
  tool: string;
  /** The tool's description, or its title, or '' when it has neither. */
  description: string;
  /** JSON Schema of the arguments, made acceptable to the provider (see mcp-schema.ts). */
  parameters: ToolParameters;
  /** `annotations.readOnlyHint === true`: the tool says it changes nothing (may skip asking in accept-edits mode). */
  readOnly: boolean;
  /** ACP `ToolKind` for the `tool_call`, see {@link mcpToolKind}. */
  kind: McpToolKind;
  /** ACP `tool_call` title: `<server>: <tool>`. */
  title: string;
}

/**
 * The ACP kind from a tool's annotations. MCP's defaults are `destructiveHint: true` and
 * `openWorldHint: true`, so only hints the server states explicitly count:
 * - read-only and open-world (web search, fetch) → `fetch`;
 * - read-only → `read`;
 * - not read-only, explicitly not destructive, and not open-world (adds or edits local state) → `edit`;
 * - anything else → `other` (the safe default: the client shows a generic tool).
 * @internal a pure rule checked per annotation, without a server.
 */
export function mcpToolKind(annotations: McpToolAnnotations | undefined): McpToolKind {
  if (annotations?.readOnlyHint === true) return annotations.openWorldHint === true ? 'fetch' : 'read';
  if (annotations?.destructiveHint === false && annotations.openWorldHint !== true) return 'edit';
  return 'other';
}

/** A server's ready tool list, in the order of the client's `mcpServers`. */
export interface ServerTools {
  server: string;
  tools: readonly McpToolInfo[];
}

/** Options of {@link describeMcpTools}. */
export interface DescribeOptions {
  /** Use the Gemini schema profile (see mcp-schema.ts). */
  gemini: boolean;
  /** Most MCP tools to return; the rest are left out (later servers and tools first). Default: all. */
  maxTools?: number;
}

/**
 * Descriptors for the tools of `servers` (in server order, then each server's order), named
 * apart from `reserved` (the built-in tools) and from each other. Past `maxTools` the rest are
 * returned in `leftOut` as `<server>__<tool>`-style names for a log line. Pure; never throws.
 */
export function describeMcpTools(
  servers: readonly ServerTools[],
  reserved: ReadonlySet<string>,
  { gemini, maxTools = Infinity }: DescribeOptions,
): { tools: McpToolDescriptor[]; leftOut: string[] } {
  const all = servers.flatMap(({ server, tools }) => tools.map((info) => ({ server, info })));
  const refs: McpToolRef[] = all.map(({ server, info }) => ({ server, tool: info.name }));
  const names = mcpToolNames(refs, reserved);
  const tools = all.map(
    ({ server, info }, index): McpToolDescriptor => ({
      name: names[index]!,
      server,
      tool: info.name,
      description: info.description ?? info.title ?? info.annotations?.title ?? '',
      parameters: toFunctionParameters(info.inputSchema, { gemini }),
      readOnly: info.annotations?.readOnlyHint === true,
      kind: mcpToolKind(info.annotations),
      title: `${server}: ${info.name}`,
    }),
  );
  const keep = Math.max(0, Math.floor(maxTools));
  return { tools: tools.slice(0, keep), leftOut: tools.slice(keep).map((tool) => tool.name) };
}
