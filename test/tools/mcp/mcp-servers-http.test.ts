/**
 * McpServers against MCP servers on 127.0.0.1 (helpers.ts: the SDK's Streamable HTTP and SSE
 * server transports on node:http): both transports, the fall-back from Streamable HTTP to SSE,
 * headers sent but never logged, a refused connection, a server that never answers, and a tool
 * that breaks its output schema.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { McpServers, McpServersOptions } from '../../../src/tools/mcp/mcp-servers.js';
import { startMcpServers } from '../../../src/tools/mcp/mcp-servers.js';
import type { HttpServers } from './helpers.js';
import { recordingLogger, startHttpServers } from './helpers.js';

const BUILT_INS = new Set(['read_file', 'run_command']);
const SECRET = 'Bearer s3cret-token-value';
let web: HttpServers;
const started: McpServers[] = [];

beforeAll(async () => {
  web = await startHttpServers();
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((servers) => servers.close()));
});
afterAll(() => web.close());

function start(servers: Parameters<typeof startMcpServers>[0], options: Partial<McpServersOptions> = {}) {
  const logger = recordingLogger();
  const mcp = startMcpServers(servers, { cwd: process.cwd(), logger, ...options });
  started.push(mcp);
  return { mcp, logger };
}

const remote = (type: 'http' | 'sse', name: string, path: string, headers: { name: string; value: string }[] = []) => ({
  type,
  name,
  url: `${web.url}${path}`,
  headers,
});

describe('McpServers over HTTP', () => {
  it('uses Streamable HTTP for type "http", sending the headers without logging their values', async () => {
    const { mcp, logger } = start([remote('http', 'web', '/mcp?token=query-secret', [{ name: 'Authorization', value: SECRET }])]);
    await mcp.ready();
    expect(mcp.status()).toEqual([{ server: 'web', state: 'ready', transport: 'streamable-http', tools: 9 }]);
    mcp.tools(BUILT_INS, { gemini: false });
    await expect(mcp.call('web__echo', { text: 'over http' })).resolves.toMatchObject({ isError: false, text: 'echo: over http' });
    expect(web.headers.get('/mcp')?.every((h) => h.authorization === SECRET)).toBe(true);
    expect(logger.text()).not.toContain('s3cret');
    expect(logger.text()).not.toContain('query-secret');
  });

  it('uses SSE for type "sse"', async () => {
    const { mcp } = start([remote('sse', 'old', '/sse', [{ name: 'X-Api-Key', value: 'sse-secret' }])]);
    await mcp.ready();
    expect(mcp.status()[0]).toMatchObject({ state: 'ready', transport: 'sse' });
    mcp.tools(BUILT_INS, { gemini: false });
    await expect(mcp.call('old__ping', {})).resolves.toMatchObject({ text: 'pong' });
    expect(web.headers.get('/sse')?.some((h) => h['x-api-key'] === 'sse-secret')).toBe(true);
  });

  it('falls back to SSE when Streamable HTTP fails on a type "http" server', async () => {
    const { mcp } = start([remote('http', 'legacy', '/sse')]);
    await mcp.ready();
    expect(mcp.status()[0]).toMatchObject({ state: 'ready', transport: 'sse' });
    mcp.tools(BUILT_INS, { gemini: false });
    await expect(mcp.call('legacy__echo', { text: 'x' })).resolves.toMatchObject({ text: 'echo: x' });
    expect(mcp.takeNotices()).toEqual([]);
  });

  it('reports a refused connection, having tried both transports', async () => {
    // A port that was just free: nothing listens there now.
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const { mcp } = start([{ type: 'http', name: 'down', url: `http://127.0.0.1:${port}/mcp`, headers: [] }]);
    await mcp.ready();
    const [notice] = mcp.takeNotices();
    expect(notice).toMatch(new RegExp(`^MCP server "down" could not start: http://127\\.0\\.0\\.1:${port}/mcp: Streamable HTTP: .*; SSE: `));
    expect(notice).toContain('ECONNREFUSED');
  });

  it('abandons a server that never answers, within the limits', async () => {
    const { mcp } = start([remote('http', 'hang', '/hang'), remote('http', 'web', '/mcp')], { startupMs: 3_000, connectTimeoutMs: 700 });
    await mcp.ready();
    // ready() came before the 3 s startup limit: the hanging server had already failed at 0.7 s.
    expect(mcp.takeNotices()).toEqual(['MCP server "hang" could not start: it did not finish starting within 0.7 s (timed out)']);
    expect(mcp.status().map((s) => s.state)).toEqual(['failed', 'ready']);
    await mcp.close();
    expect(mcp.status().map((s) => s.state)).toEqual(['closed', 'closed']);
  });

  it('turns an output-schema mismatch (thrown by the SDK) into an error result', async () => {
    const { mcp } = start([remote('http', 'liar', '/liar')]);
    await mcp.ready();
    expect(mcp.tools(BUILT_INS, { gemini: false }).map((t) => t.name)).toEqual(['liar__structured', 'liar__wrong', 'liar__right']);
    await expect(mcp.call('liar__structured', {})).resolves.toMatchObject({
      isError: true,
      text: 'MCP tool "structured" of server "liar" failed: Tool structured has an output schema but did not return structured content',
    });
    // Checked against the schema by the SDK's validator (Ajv).
    await expect(mcp.call('liar__wrong', {})).resolves.toMatchObject({
      isError: true,
      text: 'MCP tool "wrong" of server "liar" failed: Structured content does not match the tool\'s output schema: data/n must be number',
    });
    await expect(mcp.call('liar__right', {})).resolves.toMatchObject({ isError: false, text: '{"n":1}' });
  });

  it('treats a server without tools as ready with none', async () => {
    const { mcp } = start([remote('http', 'prompts', '/prompts-only')]);
    await mcp.ready();
    expect(mcp.status()).toEqual([{ server: 'prompts', state: 'ready', transport: 'streamable-http', tools: 0 }]);
    expect(mcp.takeNotices()).toEqual([]);
  });

  it('reports an unsupported transport and a bad URL without trying them', async () => {
    const { mcp } = start([{ type: 'acp', name: 'inline', id: 'x' } as never, { type: 'http', name: 'bad', url: 'not a url', headers: [] }]);
    await mcp.ready();
    expect(mcp.takeNotices()).toEqual([
      'MCP server "inline" could not start: its transport "acp" is not supported (use stdio, http or sse)',
      'MCP server "bad" could not start: the URL (an invalid URL) is not valid',
    ]);
  });
});
