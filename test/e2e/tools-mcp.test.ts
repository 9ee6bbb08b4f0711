/**
 * The client's MCP servers through the agent, end to end over raw JSON-RPC: a stdio server (the
 * MCP SDK fixture in test/tools/mcp/fixtures) and a Streamable HTTP one on 127.0.0.1; tools offered
 * as `<server>__<tool>` beside the built-ins, called with permission; a server that is missing or
 * never answers does not hold up the session; cancel and exit leave no server process behind; the
 * tools a session offered are saved with it, so a restart sends the same `tools` before a slow
 * server is ready.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeServerPool, type ChatHandler, type FakeOpenAI } from '../helpers/fake-openai.js';
import { spawnAgent, waitFor, type AgentProcess } from '../helpers/spawn-agent.js';
import { sharedAgentPerFile } from '../helpers/shared-agent.js';
import { answer, running, script, tempDirs, waitForRequest } from '../helpers/tool-script.js';
import { startHttpServers, stdioServer } from '../tools/mcp/helpers.js';
import { BUILTIN_TOOL_NAMES } from '../../src/tools/index.js';

const servers = fakeServerPool();
const tempDir = tempDirs('openai-acp-mcp-e2e-');
const agents: AgentProcess[] = [];
afterEach(() => {
  for (const agent of agents.splice(0)) agent.kill();
});

const BUILTINS = [...BUILTIN_TOOL_NAMES].sort();

/**
 * One agent (and its model server) for the cases that need no settings of their own and do not
 * end it, each case in sessions of its own, the server's handler, its recorded requests and the
 * agent's recorded messages started afresh per case: a process start costs ~0.3 s of CPU.
 */
const sharedAgent = sharedAgentPerFile();

async function startAgent(handler: ChatHandler, env: Record<string, string> = {}) {
  const server = await servers(handler);
  const agent = spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_ACP_STATE_DIR: 'off', ...env });
  agents.push(agent);
  const init = await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  return { server, agent, init };
}

/**
 * The model server and state directory of the cases that save a session in one process and load it
 * in another: each case sets the model's handler (its recorded requests start afresh), saves with
 * a process of its own, and loads in the file's loading process, which started before anything was
 * saved (so it reads what was saved) and whose recorded messages start afresh per case.
 */
const savedStateDir = tempDir();
const sharedLoader = sharedAgentPerFile({ env: { OPENAI_ACP_STATE_DIR: savedStateDir } });
async function savedAndLoaded(handler: ChatHandler): Promise<{ model: FakeOpenAI; env: Record<string, string>; loader: AgentProcess }> {
  const { server, agent } = await sharedLoader(handler);
  return { model: server, env: { OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_ACP_STATE_DIR: savedStateDir }, loader: agent };
}

const prompt = (agent: AgentProcess, sessionId: string, text: string) => agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
const toolMessages = (body: any) => body.messages.filter((m: any) => m.role === 'tool');

describe('MCP servers through the agent', () => {
  it('offers a stdio server tools as <server>__<tool>, asks permission in ask mode, and gives the result to the model', async () => {
    const cwd = tempDir();
    const { server, agent, init } = await sharedAgent(script([{ calls: [['fx__echo', { text: 'hi there' }]] }, { text: 'echoed' }]));
    expect(init.result.agentCapabilities.mcpCapabilities).toEqual({ http: true, sse: true });
    const { result } = await agent.request('session/new', { cwd, mcpServers: [stdioServer('fx')] });
    const pending = prompt(agent, result.sessionId, 'echo');
    const permission = await waitForRequest(agent, 'session/request_permission');
    expect(permission.params.toolCall.title).toBe('fx: echo');
    answer(agent, permission.id, { outcome: { outcome: 'selected', optionId: 'allow_once' } });
    expect((await pending).result.stopReason).toBe('end_turn');
    const names: string[] = server.requests[0]!.body.tools.map((t: any) => t.function.name);
    expect(names.filter((n) => !n.startsWith('fx__')).sort()).toEqual(BUILTINS);
    expect(names).toEqual(expect.arrayContaining(['fx__echo', 'fx__ping', 'fx__slow', 'fx__pid']));
    const call = agent.updates(result.sessionId).find((u) => u.sessionUpdate === 'tool_call');
    expect(call.title).toBe('fx: echo');
    expect(toolMessages(server.requests[1]!.body)[0].content).toContain('echo: hi there');
    const done = agent
      .updates(result.sessionId)
      .filter((u) => u.sessionUpdate === 'tool_call_update')
      .at(-1);
    expect(done.status).toBe('completed');
  });

  it('a server that cannot start: session/new answers, the next prompt names it and why, built-ins still work', async () => {
    const cwd = tempDir();
    const { server, agent } = await sharedAgent(script([{ calls: [['list_directory', {}]] }, { text: 'listed' }]));
    const missing = { name: 'ghost', command: '/nonexistent/mcp-server-bin', args: [], env: [] };
    const created = await agent.request('session/new', { cwd, mcpServers: [missing] });
    expect(created.result.sessionId).toBeTruthy();
    const sessionId = created.result.sessionId;
    expect((await prompt(agent, sessionId, 'list')).result.stopReason).toBe('end_turn');
    const chunks = agent
      .updates(sessionId)
      .filter((u) => u.sessionUpdate === 'agent_message_chunk')
      .map((u) => u.content.text);
    expect(chunks[0]).toMatch(/"ghost"/);
    expect(chunks[0]).toMatch(/ENOENT|not found|no such file/i);
    expect(chunks.join('').indexOf('ghost')).toBeLessThan(chunks.join('').indexOf('listed'));
    expect(server.requests[0]!.body.tools.map((t: any) => t.function.name).sort()).toEqual(BUILTINS);
    expect(toolMessages(server.requests[1]!.body)[0].content).not.toMatch(/error/i);
  });

  it('a server that never answers initialize holds session/new for at most OPENAI_ACP_MCP_STARTUP_MS', async () => {
    const cwd = tempDir();
    const { agent } = await startAgent(script([{ text: 'hi' }]), { OPENAI_ACP_MCP_STARTUP_MS: '800' });
    const t0 = performance.now();
    const created = await agent.request('session/new', { cwd, mcpServers: [stdioServer('stuck', 'no-init')] });
    const ms = performance.now() - t0;
    // The server never answers: session/new came back because the bound ran out, not before it.
    expect(created.result.sessionId).toBeTruthy();
    expect(ms).toBeGreaterThanOrEqual(780);
    await prompt(agent, created.result.sessionId, 'hello');
    expect(agent.text(created.result.sessionId)).toMatch(/"stuck" is still starting/);
  });

  it('cancel during a slow MCP call answers cancelled', async () => {
    const cwd = tempDir();
    const { agent } = await sharedAgent(script([{ calls: [['fx__slow', {}]] }, { text: 'never' }]));
    const { result } = await agent.request('session/new', { cwd, mcpServers: [stdioServer('fx')] });
    await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
    const pending = prompt(agent, result.sessionId, 'slow');
    await waitFor(
      () => agent.updates(result.sessionId).some((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'in_progress'),
      20_000,
      'the call to start',
    );
    agent.notify('session/cancel', { sessionId: result.sessionId });
    expect((await pending).result.stopReason).toBe('cancelled');
  });

  it('leaves no MCP server process behind after stdin EOF', async () => {
    const cwd = tempDir();
    const { server, agent } = await startAgent(script([{ calls: [['fx__pid', {}]] }, { text: 'got it' }]));
    const { result } = await agent.request('session/new', { cwd, mcpServers: [stdioServer('fx')] });
    await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
    await prompt(agent, result.sessionId, 'pid?');
    const pid = Number(toolMessages(server.requests[1]!.body)[0].content.trim());
    expect(pid).toBeGreaterThan(1);
    expect(running(pid)).toBe(true);
    agent.child.stdin.end();
    await agent.exited;
    await waitFor(() => !running(pid), 2000, 'the MCP server to exit');
  });

  it('leaves no MCP server behind after stdin EOF even when it ignores EOF and SIGTERM', async () => {
    const cwd = tempDir();
    const { server, agent } = await startAgent(script([{ calls: [['fx__pid', {}]] }, { text: 'got it' }]));
    const { result } = await agent.request('session/new', { cwd, mcpServers: [stdioServer('fx', 'ignore-eof')] });
    await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
    await prompt(agent, result.sessionId, 'pid?');
    const pid = Number(toolMessages(server.requests[1]!.body)[0].content.trim());
    expect(running(pid)).toBe(true);
    agent.child.stdin.end();
    expect(await agent.exited).toBe(0);
    await waitFor(() => !running(pid), 2000, 'the MCP server to be killed');
  });

  it('offers and calls the tools of a Streamable HTTP server', async () => {
    const cwd = tempDir();
    const http = await startHttpServers();
    try {
      const { server, agent } = await sharedAgent(script([{ calls: [['web__echo', { text: 'over http' }]] }, { text: 'done' }]));
      const { result } = await agent.request('session/new', { cwd, mcpServers: [{ type: 'http', name: 'web', url: `${http.url}/mcp`, headers: [] }] });
      await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
      expect((await prompt(agent, result.sessionId, 'echo')).result.stopReason).toBe('end_turn');
      expect(server.requests[0]!.body.tools.map((t: any) => t.function.name)).toContain('web__echo');
      expect(agent.updates(result.sessionId).find((u) => u.sessionUpdate === 'tool_call').title).toBe('web: echo');
      expect(toolMessages(server.requests[1]!.body)[0].content).toContain('echo: over http');
    } finally {
      await http.close();
    }
  });

  it('checks structured results against the tool output schema: a mismatch is an error result for the model', async () => {
    const cwd = tempDir();
    const http = await startHttpServers();
    try {
      const { server, agent } = await sharedAgent(script([{ calls: [['liar__wrong', {}]] }, { calls: [['liar__right', {}]] }, { text: 'done' }]));
      const { result } = await agent.request('session/new', { cwd, mcpServers: [{ type: 'http', name: 'liar', url: `${http.url}/liar`, headers: [] }] });
      await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
      expect((await prompt(agent, result.sessionId, 'structured')).result.stopReason).toBe('end_turn');
      expect(toolMessages(server.requests[1]!.body)[0].content).toMatch(/does not match the tool's output schema: data\/n must be number/);
      expect(toolMessages(server.requests[2]!.body)[1].content).toBe('{"n":1}');
      const statuses = agent
        .updates(result.sessionId)
        .filter((u) => u.sessionUpdate === 'tool_call_update' && u.status !== 'in_progress')
        .map((u) => u.status);
      expect(statuses).toEqual(['failed', 'completed']);
    } finally {
      await http.close();
    }
  });

  it('read-only mode offers the same MCP tools; one marked read-only runs (asking as in ask); accept-edits runs it without asking', async () => {
    const cwd = tempDir();
    const { server, agent } = await sharedAgent(script([{ calls: [['fx__echo', { text: 'ro' }]] }, { text: 'ok' }]));
    const { result } = await agent.request('session/new', { cwd, mcpServers: [stdioServer('fx')] });
    await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'read-only' });
    const pending = prompt(agent, result.sessionId, 'look');
    const permission = await waitForRequest(agent, 'session/request_permission');
    answer(agent, permission.id, { outcome: { outcome: 'selected', optionId: 'allow_once' } });
    await pending;
    const offered: string[] = server.requests[0]!.body.tools.map((t: any) => t.function.name);
    expect(offered).toContain('fx__echo');
    expect(toolMessages(server.requests[1]!.body)[0].content).toContain('echo: ro');
    await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'accept-edits' });
    await prompt(agent, result.sessionId, 'again');
    expect(agent.messages.filter((m) => m.method === 'session/request_permission')).toHaveLength(1);
    expect(toolMessages(server.requests.at(-1)!.body).at(-1).content).toContain('echo: ro');
    expect(JSON.stringify(server.requests.at(-1)!.body.tools)).toBe(JSON.stringify(server.requests[0]!.body.tools));
  });

  it('session/close stops the session MCP server; a failure notice is shown once', async () => {
    const cwd = tempDir();
    const { server, agent } = await sharedAgent(script([{ calls: [['fx__pid', {}]] }, { text: 'got it' }, { text: 'second' }]));
    const missing = { name: 'ghost', command: '/nonexistent/mcp-server-bin', args: [], env: [] };
    const { result } = await agent.request('session/new', { cwd, mcpServers: [stdioServer('fx'), missing] });
    await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
    await prompt(agent, result.sessionId, 'pid?');
    await prompt(agent, result.sessionId, 'again');
    expect(agent.text(result.sessionId).match(/"ghost"/g)).toHaveLength(1);
    const pid = Number(toolMessages(server.requests[1]!.body)[0].content.trim());
    expect(running(pid)).toBe(true);
    expect((await agent.request('session/close', { sessionId: result.sessionId })).error).toBeUndefined();
    await waitFor(() => !running(pid), 3000, 'the MCP server to exit');
  });

  it('session/load in a new process starts the servers again and offers their tools', async () => {
    const cwd = tempDir();
    const { model, env, loader } = await savedAndLoaded(script([{ text: 'first' }, { calls: [['fx__ping', {}]] }, { text: 'pinged' }]));
    const first = spawnAgent(env);
    agents.push(first);
    await first.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { result } = await first.request('session/new', { cwd, mcpServers: [stdioServer('fx')] });
    await first.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
    await prompt(first, result.sessionId, 'hi');
    first.child.stdin.end();
    await first.exited;
    const second = loader;
    expect((await second.request('session/load', { sessionId: result.sessionId, cwd, mcpServers: [stdioServer('fx')] })).error).toBeUndefined();
    expect((await prompt(second, result.sessionId, 'ping')).result.stopReason).toBe('end_turn');
    expect(model.requests[1]!.body.tools.map((t: any) => t.function.name)).toContain('fx__ping');
    expect(toolMessages(model.requests[2]!.body)[0].content).toBe('pong');
  });

  it('session/load after a kill offers the saved MCP tools before a slow server is ready: the same tools bytes, and a call waits for the server', async () => {
    const cwd = tempDir();
    // The server serves only while this file exists: on the second start it is slow for as long as the test wants.
    const gate = join(tempDir(), 'gate');
    writeFileSync(gate, '');
    const mcpServers = [stdioServer('fx', 'gate', [{ name: 'FIXTURE_GATE', value: gate }])];
    const { model, env, loader } = await savedAndLoaded(script([{ text: 'first' }, { calls: [['fx__ping', {}]] }, { text: 'pinged' }]));
    const first = spawnAgent(env);
    agents.push(first);
    await first.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { result } = await first.request('session/new', { cwd, mcpServers });
    await first.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
    expect((await prompt(first, result.sessionId, 'hi')).result.stopReason).toBe('end_turn');
    const before = JSON.stringify(model.requests[0]!.body.tools);
    expect(before).toContain('fx__ping');
    first.kill();
    await first.exited;

    rmSync(gate);
    const second = loader;
    expect((await second.request('session/load', { sessionId: result.sessionId, cwd, mcpServers })).error).toBeUndefined();
    const pending = prompt(second, result.sessionId, 'ping');
    // The model is asked while the server cannot have answered (the gate is closed), with the tools of before.
    await waitFor(() => model.requests.length >= 2, 20_000, 'the restarted prompt to ask the model');
    expect(JSON.stringify(model.requests[1]!.body.tools)).toBe(before);
    // The model calls the saved tool: the call waits for the server, which serves once the gate opens.
    await waitFor(() => second.updates(result.sessionId).some((u) => u.sessionUpdate === 'tool_call'), 20_000, 'the call of fx__ping');
    writeFileSync(gate, '');
    expect((await pending).result.stopReason).toBe('end_turn');
    expect(toolMessages(model.requests[2]!.body)[0].content).toBe('pong');
    // The server's live list took the saved one's place with the same bytes.
    expect(JSON.stringify(model.requests[2]!.body.tools)).toBe(before);
  });
});
