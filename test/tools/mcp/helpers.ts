/**
 * Helpers of the MCP client tests: a recording logger, the stdio fixture's command, and MCP
 * servers over Streamable HTTP and SSE on 127.0.0.1 (the SDK's server transports on node:http).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../../src/shared/log.js';
// @ts-expect-error -- a plain .mjs fixture without type declarations
import { createFixtureServer } from './fixtures/mcp-fixture-tools.mjs';

export { stdioServer } from './stdio-fixture.js';

/** One logged record. */
export interface LogRecord {
  level: 'error' | 'warn' | 'info' | 'debug';
  msg: string;
  fields?: Record<string, unknown>;
}

/** A Logger that keeps every record (all levels) in `records`. */
export function recordingLogger(): Logger & { records: LogRecord[]; text(): string } {
  const records: LogRecord[] = [];
  const log = (level: LogRecord['level']) => (msg: string, fields?: Record<string, unknown>) => void records.push({ level, msg, fields });
  return {
    level: 'debug',
    records,
    error: log('error'),
    warn: log('warn'),
    info: log('info'),
    debug: log('debug'),
    text: () => records.map((r) => `${r.level} ${r.msg} ${r.fields ? JSON.stringify(r.fields) : ''}`).join('\n'),
  };
}

/** Whether the process `pid` exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += chunk;
  return body;
}

/** The running loopback server of {@link startHttpServers}. */
export interface HttpServers {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Request headers seen, by path (without query). */
  headers: Map<string, http.IncomingHttpHeaders[]>;
  close(): Promise<void>;
}

/**
 * One node:http server on 127.0.0.1 port 0 with:
 * - `/mcp`: the fixture tools over Streamable HTTP (stateful sessions);
 * - `/sse` (GET) + `/messages` (POST): the fixture tools over the old SSE transport; a POST to
 *   `/sse` answers 405, as an SSE-only server does, so a Streamable HTTP attempt fails there;
 * - `/liar`: a low-level server that lists a tool with an output schema and answers its calls
 *   without structured content (the client SDK then throws).
 * - `/prompts-only`: a stateless server with a prompt and no tools capability;
 * - `/hang`: accepts and never answers.
 */
export async function startHttpServers(): Promise<HttpServers> {
  const streamable = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();
  const closers: (() => Promise<void>)[] = [];
  const headers = new Map<string, http.IncomingHttpHeaders[]>();
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    headers.set(url.pathname, [...(headers.get(url.pathname) ?? []), req.headers]);
    try {
      if (url.pathname === '/mcp' || url.pathname === '/liar') {
        const sid = req.headers['mcp-session-id'];
        let transport = typeof sid === 'string' ? streamable.get(sid) : undefined;
        const body = req.method === 'POST' ? JSON.parse(await readBody(req)) : undefined;
        if (transport === undefined) {
          const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (id) => void streamable.set(id, created),
          });
          transport = created;
          const mcp = url.pathname === '/mcp' ? createFixtureServer('http-fixture') : liarServer();
          await mcp.connect(transport);
          closers.push(() => mcp.close());
        }
        await transport.handleRequest(req, res, body);
      } else if (url.pathname === '/sse' && req.method === 'GET') {
        const transport = new SSEServerTransport('/messages', res);
        sse.set(transport.sessionId, transport);
        const mcp = createFixtureServer('sse-fixture');
        await mcp.connect(transport);
        closers.push(() => mcp.close());
      } else if (url.pathname === '/messages' && req.method === 'POST') {
        const transport = sse.get(url.searchParams.get('sessionId') ?? '');
        if (transport === undefined) res.writeHead(404).end('no such session');
        else await transport.handlePostMessage(req, res);
      } else if (url.pathname === '/prompts-only') {
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        const mcp = new McpServer({ name: 'prompts', version: '1.0.0' });
        mcp.registerPrompt('hello', { description: 'Says hello' }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }] }));
        await mcp.connect(transport);
        closers.push(() => mcp.close());
        await transport.handleRequest(req, res, req.method === 'POST' ? JSON.parse(await readBody(req)) : undefined);
      } else if (url.pathname === '/hang') {
        hanging.push(res);
      } else {
        res.writeHead(url.pathname === '/sse' ? 405 : 404).end();
      }
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    headers,
    async close() {
      await Promise.allSettled(closers.map((close) => close()));
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A low-level MCP server with three tools promising the same output schema (`{n: number}`):
 * `structured` returns no structured content, `wrong` returns `{n: 'one'}`, `right` returns `{n: 1}`.
 */
function liarServer(): Server {
  const server = new Server({ name: 'liar', version: '1.0.0' }, { capabilities: { tools: {} } });
  const outputSchema = { type: 'object' as const, properties: { n: { type: 'number' } }, required: ['n'] };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: ['structured', 'wrong', 'right'].map((name) => ({
      name,
      description: 'Promises structured output',
      inputSchema: { type: 'object' as const },
      outputSchema,
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    if (params.name === 'wrong') return { content: [], structuredContent: { n: 'one' } };
    if (params.name === 'right') return { content: [], structuredContent: { n: 1 } };
    return { content: [{ type: 'text', text: 'no structure here' }] };
  });
  return server;
}
