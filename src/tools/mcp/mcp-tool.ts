/**
 * An MCP tool as a `Tool` (`tools/tool.ts`): its arguments read by the one pipeline, driven by the
 * server's own `inputSchema` (parameter names, types, required ones; parameters the schema does
 * not name are passed on: the server checks the rest); `runs` for the permission, remembered per
 * server and tool; shown as `<server>: <tool>`; run as `tools/call` on its server, with the
 * server's questions asked through the editor.
 *
 * Source: MCP `tools/call` https://modelcontextprotocol.io/specification/2025-06-18/server/tools#calling-tools
 * (`arguments` is an object checked against the tool's `inputSchema`).
 */
import { objectSchema } from '../calls/argument-types.js';
import { type ArgumentSpec, checkArguments } from '../calls/check-arguments.js';
import { capForModel } from '../present/output-cap.js';
import type { PermissionSubject, Tool, ToolOutcome } from '../tool.js';
import type { McpElicit } from './mcp-elicitation.js';
import type { McpServers } from './mcp-servers.js';
import type { McpToolDescriptor } from './mcp-tools.js';

/** How a call of a session's MCP tools runs: on its servers, their questions asked through `elicit` (absent: declined). */
export interface McpRunner {
  servers: Pick<McpServers, 'call'>;
  /** How a server's question during the call `toolCallId` reaches the user; absent: declined. */
  elicit?: ((toolCallId: string) => McpElicit) | undefined;
}

/** The MCP tool `descriptor` (from the session's latest tool list) as a `Tool`. */
export function mcpTool(descriptor: McpToolDescriptor, runner: McpRunner): Tool {
  const spec: ArgumentSpec = { name: descriptor.name, schema: objectSchema(descriptor.parameters), unknown: 'keep' };
  return {
    name: descriptor.name,
    description: descriptor.description,
    parameters: descriptor.parameters,
    check: (raw, cutOff) => checkArguments(spec, raw, cutOff),
    permission: () => mcpSubject(descriptor),
    present: () => ({ title: descriptor.title, kind: descriptor.kind }),
    async run(args, ctx) {
      const result = await runner.servers.call(descriptor.name, args, { signal: ctx.signal, elicit: runner.elicit?.(ctx.toolCallId) });
      const outcome: ToolOutcome = {
        failed: result.isError,
        forModel: capForModel(result.text).text,
        content: result.content.map((block) => ({ type: 'content', content: block })),
      };
      if (result.images.length > 0) outcome.images = result.images;
      return outcome;
    },
  };
}

/**
 * What an MCP tool call needs: `runs`, remembered per server and tool (`mcp:<server>/<tool>`), its `readOnlyHint` kept.
 * @internal the permission policy's tests build subjects with it.
 */
export function mcpSubject(tool: { server: string; tool: string; readOnly?: boolean | undefined }): PermissionSubject {
  const subject: PermissionSubject = { permission: 'runs', key: `mcp:${tool.server}/${tool.tool}`, scope: `the MCP tool ${tool.server}/${tool.tool}` };
  if (tool.readOnly !== undefined) subject.readOnlyHint = tool.readOnly;
  return subject;
}
