// The stdio MCP server of the build's training run (scripts/build.mjs, trainCodeCache): one tool,
// `echo`, with an input and an output schema, so the run compiles what a real MCP session runs in
// the agent's MCP client chunk (start-up, tools/list, the output-schema validator, tools/call and
// its result check). Built with the MCP SDK's own server API; serves on stdin/stdout until stdin
// ends. Not shipped: only the build runs it.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod/v4';

const server = new McpServer({ name: 'openai-acp-training', version: '1.0.0' });
server.registerTool(
  'echo',
  {
    description: 'Echoes its text',
    inputSchema: { text: z.string() },
    outputSchema: { echoed: z.string(), length: z.number() },
    annotations: { readOnlyHint: true },
  },
  async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }], structuredContent: { echoed: text, length: text.length } }),
);
await server.connect(new StdioServerTransport());
