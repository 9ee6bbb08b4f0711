/**
 * McpServers given the tool list a session saved (`saved`): offered before the servers are ready,
 * with the bytes the live list then has; not waited for by ready(); a call of a saved tool waits
 * for its server within its signal, or says why it cannot run; a server no longer configured is
 * not offered. Against the stdio fixture (fixtures/mcp-stdio-server.mjs, `gate` mode: it serves
 * once a file exists).
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { McpServers, McpServersOptions } from '../../../src/tools/mcp/mcp-servers.js';
import { startMcpServers } from '../../../src/tools/mcp/mcp-servers.js';
import type { McpToolDescriptor } from '../../../src/tools/mcp/mcp-tools.js';
import { recordingLogger, stdioServer } from './helpers.js';
import { waitFor } from '../../helpers/spawn-agent.js';

const BUILT_INS = new Set(['read_file', 'write_file', 'edit_file', 'list_directory', 'search_files', 'run_command']);
let dir: string;
let gates = 0;
const started: McpServers[] = [];

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-saved-')));
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((servers) => servers.close()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function start(servers: Parameters<typeof startMcpServers>[0], options: Partial<McpServersOptions> = {}) {
  const logger = recordingLogger();
  const mcp = startMcpServers(servers, { cwd: dir, logger, ...options });
  started.push(mcp);
  return { mcp, logger };
}

/** A stdio server `fx` that serves once `open()` is called. */
function gated(name = 'fx') {
  const gate = join(dir, `gate-${++gates}`);
  return { server: stdioServer(name, 'gate', [{ name: 'FIXTURE_GATE', value: gate }]), open: () => writeFileSync(gate, '') };
}

const ping = (server = 'fx'): McpToolDescriptor => ({
  name: `${server}__ping`,
  server,
  tool: 'ping',
  description: 'Answers pong',
  parameters: { type: 'object', properties: {}, required: [] },
  readOnly: false,
  kind: 'other',
  title: `${server}: ping`,
});

/** The list a first process offered once `fx` was ready, as saved (JSON). */
async function savedBytes(): Promise<string> {
  const { server, open } = gated();
  open();
  const { mcp } = start([server]);
  await mcp.ready();
  const bytes = JSON.stringify(mcp.tools(BUILT_INS, { gemini: false }));
  await mcp.close();
  return bytes;
}

describe('McpServers with a saved tool list', () => {
  it('offers the saved list before the server is ready, and the same bytes once its live list takes the place', async () => {
    const bytes = await savedBytes();
    expect(JSON.parse(bytes).length).toBeGreaterThan(3);
    const { server, open } = gated();
    const { mcp, logger } = start([server], { saved: JSON.parse(bytes), startupMs: 60_000 });
    await mcp.ready();
    // ready() did not wait for the server: no "still starting" notice yet, and it has not answered.
    expect(mcp.takeNotices()).toEqual([]);
    expect(mcp.status()[0]!.state).toBe('starting');
    expect(JSON.stringify(mcp.tools(BUILT_INS, { gemini: false }))).toBe(bytes);
    open();
    await waitFor(() => mcp.status()[0]!.state === 'ready');
    expect(JSON.stringify(mcp.tools(BUILT_INS, { gemini: false }))).toBe(bytes);
    expect(logger.text()).not.toMatch(/error/);
  });

  it('does not offer the saved tools of a server no longer configured', () => {
    const { server } = gated();
    const { mcp } = start([server], { saved: [ping('gone'), ping('fx')] });
    expect(mcp.tools(BUILT_INS, { gemini: false }).map((tool) => tool.name)).toEqual(['fx__ping']);
  });

  it('a call of a saved tool waits for its starting server, then runs', async () => {
    const { server, open } = gated();
    const { mcp, logger } = start([server], { saved: [ping()] });
    mcp.tools(BUILT_INS, { gemini: false });
    const call = mcp.call('fx__ping', {}, { signal: new AbortController().signal });
    await waitFor(() => logger.records.some((r) => r.msg.includes('waits for its server')));
    open();
    expect(await call).toMatchObject({ isError: false, text: 'pong' });
  });

  it('a call waiting for a server that does not answer ends with its signal', async () => {
    const { server } = gated();
    const { mcp, logger } = start([server], { saved: [ping()] });
    mcp.tools(BUILT_INS, { gemini: false });
    const stop = new AbortController();
    const call = mcp.call('fx__ping', {}, { signal: stop.signal });
    await waitFor(() => logger.records.some((r) => r.msg.includes('waits for its server')));
    stop.abort(new Error('cancelled by the user'));
    await expect(call).rejects.toThrow('cancelled by the user');
    expect(mcp.status()[0]!.state).toBe('starting');
  });

  it('a saved tool whose server could not start answers an error result naming the server and why', async () => {
    const { mcp } = start([stdioServer('fx', 'exit')], { saved: [ping()] });
    mcp.tools(BUILT_INS, { gemini: false });
    const result = await mcp.call('fx__ping', {});
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/The MCP server "fx" could not start \(.+\), so its tool "fx__ping" cannot run\./);
  });

  it('a saved tool the ready server no longer lists says so', async () => {
    const { server, open } = gated();
    open();
    const gone = { ...ping(), name: 'fx__retired', tool: 'retired', title: 'fx: retired' };
    const { mcp } = start([server], { saved: [gone] });
    mcp.tools(BUILT_INS, { gemini: false });
    const result = await mcp.call('fx__retired', {});
    expect(result).toMatchObject({ isError: true, text: 'The MCP server "fx" no longer offers the tool "fx__retired".' });
  });
});
