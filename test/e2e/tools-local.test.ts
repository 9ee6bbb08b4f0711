/**
 * The agent loop end to end over raw JSON-RPC, for a client without fs or terminal (Open Design,
 * stdio Bus pools): tools run locally, inside the session's workspace. The model is a scripted
 * loopback server that answers with tool calls, then text.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { chunk, fakeServerPool, type ChatHandler } from '../helpers/fake-openai.js';
import { script, waitForRequest } from '../helpers/tool-script.js';
import { spawnAgent, type AgentProcess } from '../helpers/spawn-agent.js';
import { sharedAgentPerFile } from '../helpers/shared-agent.js';
import { BUILTIN_TOOL_NAMES } from '../../src/tools/index.js';

const servers = fakeServerPool();
const dirs: string[] = [];
const agents: AgentProcess[] = [];
/** The agent (and its model server) of the cases that need no settings of their own. */
const sharedAgent = sharedAgentPerFile();
afterEach(() => {
  for (const agent of agents.splice(0)) agent.kill();
});
afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function workspace(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'openai-acp-tools-')));
  dirs.push(dir);
  return dir;
}

async function startAgent(handler: ChatHandler, env?: Record<string, string>) {
  if (env === undefined) return sharedAgent(handler);
  const server = await servers(handler);
  const agent = spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_ACP_STATE_DIR: 'off', ...env });
  agents.push(agent);
  await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  return { server, agent };
}

describe('agent loop with local tools (client without fs/terminal)', () => {
  it('reads a file, gives the result back as a tool message, and answers', async () => {
    const cwd = workspace();
    writeFileSync(join(cwd, 'notes.txt'), 'alpha\nbeta\n');
    const { server, agent } = await startAgent(script([{ calls: [['read_file', { path: 'notes.txt' }]] }, { text: 'It says alpha and beta.' }]));
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    const answer = await agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'what is in notes.txt?' }] });
    expect(answer.result.stopReason).toBe('end_turn');
    expect(answer.result.usage.totalTokens).toBe(27);
    const updates = agent.updates(result.sessionId);
    const call = updates.find((u) => u.sessionUpdate === 'tool_call');
    expect(call).toMatchObject({ kind: 'read', status: 'pending', title: expect.stringContaining('notes.txt') });
    const done = updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === call.toolCallId).at(-1);
    expect(done.status).toBe('completed');
    expect(JSON.stringify(done.content)).toContain('alpha');
    expect(agent.text(result.sessionId)).toContain('It says alpha and beta.');
    // First request offers the registry's tools; the second carries the assistant tool call and its result.
    expect(server.requests[0]!.body.tools.map((t: any) => t.function.name)).toEqual([...BUILTIN_TOOL_NAMES]);
    const second = server.requests[1]!.body.messages;
    const assistant = second.find((m: any) => m.role === 'assistant');
    expect(assistant).toMatchObject({ content: null, tool_calls: [{ id: 'call_1_0', type: 'function', function: { name: 'read_file' } }] });
    const tool = second.find((m: any) => m.role === 'tool');
    expect(tool.tool_call_id).toBe('call_1_0');
    expect(tool.content).toContain('alpha');
    expect(second.indexOf(tool)).toBe(second.indexOf(assistant) + 1);
    expect(agent.badLines).toEqual([]);
  });

  it('refuses a path outside the workspace, tells the model, and goes on', async () => {
    const cwd = workspace();
    const outside = workspace();
    writeFileSync(join(outside, 'secret.txt'), 'TOP-SECRET');
    const { server, agent } = await startAgent(
      script([
        {
          calls: [
            ['read_file', { path: join(outside, 'secret.txt') }],
            ['read_file', { path: '../' }],
          ],
        },
        { text: 'ok' },
      ]),
    );
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    const answer = await agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'read it' }] });
    expect(answer.result.stopReason).toBe('end_turn');
    const tools = server.requests[1]!.body.messages.filter((m: any) => m.role === 'tool');
    expect(tools).toHaveLength(2);
    for (const tool of tools) expect(tool.content).toMatch(/outside/i);
    expect(JSON.stringify(agent.updates(result.sessionId))).not.toContain('TOP-SECRET');
  });

  it('asks before an edit; a rejection leaves the file unchanged and the model is told', async () => {
    const cwd = workspace();
    writeFileSync(join(cwd, 'a.txt'), 'one\n');
    const { server, agent } = await startAgent(script([{ calls: [['edit_file', { path: 'a.txt', old_string: 'one', new_string: 'two' }]] }, { text: 'fine' }]));
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    const pending = agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'edit' }] });
    // The client answers the permission request by rejecting it.
    const permission = await waitForRequest(agent, 'session/request_permission');
    expect(permission.params.options.map((o: any) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once', 'reject_always']);
    agent.writeLine(JSON.stringify({ jsonrpc: '2.0', id: permission.id, result: { outcome: { outcome: 'selected', optionId: 'reject_once' } } }));
    expect((await pending).result.stopReason).toBe('end_turn');
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('one\n');
    expect(server.requests[1]!.body.messages.find((m: any) => m.role === 'tool').content).toMatch(/declined/);
  });

  it('full-access mode edits without asking; read-only mode offers the same tools and tells the model its rule in the conversation', async () => {
    const cwd = workspace();
    writeFileSync(join(cwd, 'a.txt'), 'one\n');
    const { server, agent } = await startAgent(script([{ calls: [['edit_file', { path: 'a.txt', old_string: 'one', new_string: 'two' }]] }, { text: 'done' }]));
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    expect(result.modes.availableModes.map((m: any) => m.id)).toEqual(['ask', 'accept-edits', 'plan', 'read-only', 'full-access']);
    expect(result.configOptions.find((o: any) => o.category === 'mode').currentValue).toBe('ask');
    await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
    const answer = await agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'edit' }] });
    expect(answer.result.stopReason).toBe('end_turn');
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('two\n');
    expect(agent.messages.some((m) => m.method === 'session/request_permission')).toBe(false);
    await agent.request('session/set_config_option', { sessionId: result.sessionId, configId: 'mode', value: 'read-only' });
    await agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'again' }] });
    const last = server.requests.at(-1)!.body;
    expect(JSON.stringify(last.tools)).toBe(JSON.stringify(server.requests[0]!.body.tools));
    expect(last.messages[0]).toEqual(server.requests[0]!.body.messages[0]);
    expect(last.messages.at(-1).content).toMatch(/^\[Session mode: Read only\. You cannot edit files or run commands/);
  });

  it('stops a loop of the same call, and at the step limit, with a JSON-RPC error of kind loop', async () => {
    const cwd = workspace();
    const { agent } = await startAgent(script([{ calls: [['list_directory', {}]] }]));
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    const answer = await agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'loop' }] });
    expect(answer.error).toMatchObject({ code: -32603, message: expect.stringMatching(/same arguments 3 times/), data: { kind: 'loop' } });
    let n = 0;
    const { agent: limited } = await startAgent(
      (req, res, body) => script([{ calls: [['list_directory', { path: `.${'/.'.repeat(n++)}` }]] }])(req, res, body),
      { OPENAI_ACP_MAX_STEPS: '2' },
    );
    const second = await limited.request('session/new', { cwd, mcpServers: [] });
    const stopped = await limited.request('session/prompt', { sessionId: second.result.sessionId, prompt: [{ type: 'text', text: 'go' }] });
    expect(stopped.error).toMatchObject({ code: -32603, message: expect.stringMatching(/step limit/), data: { kind: 'loop' } });
  });

  it('bad calls (cut-off JSON, unknown tool, missing field) become errors for the model and the loop goes on', async () => {
    const cwd = workspace();
    let n = 0;
    const { server, agent } = await startAgent((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (n++ === 0) {
        res.write(chunk({ tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'read_file', arguments: '{"path": ' } }] }));
        res.write(chunk({ tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'fly_away', arguments: '{}' } }] }));
        res.write(chunk({ tool_calls: [{ index: 2, id: 'c', type: 'function', function: { name: 'write_file', arguments: '{"path":"x"}' } }] }));
        res.write(chunk({}, 'tool_calls'));
      } else {
        res.write(chunk({ content: 'sorry' }));
        res.write(chunk({}, 'stop'));
      }
      res.end('data: [DONE]\n\n');
    });
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    const answer = await agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'go' }] });
    expect(answer.result.stopReason).toBe('end_turn');
    const tools = server.requests[1]!.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content);
    expect(tools).toHaveLength(3);
    expect(tools[0]).toMatch(/^read_file: this call was cut off/);
    expect(tools[1]).toMatch(/fly_away/);
    expect(tools[2]).toMatch(/content/);
  });

  it('OPENAI_ACP_TOOLS=off sends no tools and no system prompt', async () => {
    const cwd = workspace();
    const { server, agent } = await startAgent(script([{ text: 'hi' }]), { OPENAI_ACP_TOOLS: 'off' });
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    await agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'hello' }] });
    expect(server.requests[0]!.body.tools).toBeUndefined();
    expect(server.requests[0]!.body.messages).toEqual([{ role: 'user', content: 'hello' }]);
    expect(result.modes).toBeUndefined();
  });
});
