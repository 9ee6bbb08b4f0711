/**
 * Every page of an MCP server's `tools/list` and `prompts/list`, as plain data. Used by the lazy
 * MCP chunk (mcp-connect.lazy.ts); only the SDK's types are imported here, so this module adds no
 * SDK code wherever it is bundled.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpPromptInfo } from './mcp-prompts.js';
import type { McpToolInfo } from './mcp-tools.js';

/** Most pages read of one list; a server that keeps sending cursors is cut off here. */
const MAX_PAGES = 100;

/** Every page of `tools/list`. */
export async function listAllTools(client: Client, timeoutMs: number, signal?: AbortSignal): Promise<McpToolInfo[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs, signal });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}

/** Every page of `prompts/list` (plain data: name, description, arguments). */
export async function listAllPrompts(client: Client, timeoutMs: number, signal?: AbortSignal): Promise<McpPromptInfo[]> {
  const prompts: McpPromptInfo[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await client.listPrompts(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs, signal });
    prompts.push(
      ...result.prompts.map(({ name, description, arguments: args }) => ({
        name,
        description,
        arguments: args?.map(({ name, description, required }) => ({ name, description, required })),
      })),
    );
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return prompts;
}
