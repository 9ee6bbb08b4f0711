/**
 * Where file tools run, by the client's capabilities: a client advertising `fs.readTextFile` and
 * `fs.writeTextFile` gets `fs/read_text_file` / `fs/write_text_file` requests (it sees unsaved
 * buffers, it writes), and the agent never touches the disk file itself; a client without them
 * gets no fs or terminal requests and the agent works on the disk.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeServerPool, type ChatHandler } from '../helpers/fake-openai.js';
import { spawnAgent, type AgentProcess } from '../helpers/spawn-agent.js';
import { answer, script, tempDirs } from '../helpers/tool-script.js';

const servers = fakeServerPool();
const tempDir = tempDirs('openai-acp-client-fs-');
const agents: AgentProcess[] = [];
afterEach(() => {
  for (const agent of agents.splice(0)) agent.kill();
});

/**
 * A fake editor: answers `fs/read_text_file` from `buffers` (its unsaved text) and records
 * `fs/write_text_file` into `written` without touching the disk.
 */
function fakeEditor(agent: AgentProcess, buffers: Record<string, string>, written: Array<{ path: string; content: string }>): void {
  let seen = 0;
  agent.child.stdout.on('data', () => {
    for (; seen < agent.messages.length; seen++) {
      const m = agent.messages[seen];
      if (m.method === 'fs/read_text_file') {
        const text = buffers[m.params.path];
        if (text === undefined) agent.writeLine(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32002, message: `not found: ${m.params.path}` } }));
        else answer(agent, m.id, { content: text });
      } else if (m.method === 'fs/write_text_file') {
        written.push({ path: m.params.path, content: m.params.content });
        buffers[m.params.path] = m.params.content;
        answer(agent, m.id, {});
      }
    }
  });
}

async function startAgent(handler: ChatHandler, clientCapabilities: Record<string, unknown>) {
  const server = await servers(handler);
  const agent = spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_ACP_STATE_DIR: 'off' });
  agents.push(agent);
  await agent.request('initialize', { protocolVersion: 1, clientCapabilities });
  return { server, agent };
}

describe('file tools and the client capabilities', () => {
  it('a client with fs: reads, edits and writes go through fs/*; the disk file stays unchanged', async () => {
    const cwd = tempDir();
    const file = join(cwd, 'a.txt');
    writeFileSync(file, 'on disk\n');
    const { server, agent } = await startAgent(
      script([
        { calls: [['read_file', { path: 'a.txt' }]] },
        { calls: [['edit_file', { path: 'a.txt', old_string: 'unsaved', new_string: 'edited' }]] },
        { calls: [['write_file', { path: 'b.txt', content: 'new file\n' }]] },
        { text: 'done' },
      ]),
      { fs: { readTextFile: true, writeTextFile: true } },
    );
    const buffers: Record<string, string> = { [file]: 'unsaved buffer\n' };
    const written: Array<{ path: string; content: string }> = [];
    fakeEditor(agent, buffers, written);
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
    const answered = await agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'go' }] });
    expect(answered.result.stopReason).toBe('end_turn');
    // The model saw the editor's buffer, not the disk.
    expect(server.requests[1]!.body.messages.find((m: any) => m.role === 'tool').content).toContain('unsaved buffer');
    expect(agent.messages.filter((m) => m.method === 'fs/read_text_file').every((m) => m.params.sessionId === result.sessionId)).toBe(true);
    expect(written).toEqual([
      { path: file, content: 'edited buffer\n' },
      { path: join(cwd, 'b.txt'), content: 'new file\n' },
    ]);
    expect(readFileSync(file, 'utf8')).toBe('on disk\n');
    expect(() => readFileSync(join(cwd, 'b.txt'))).toThrow(/ENOENT/);
  });

  it('a client without fs or terminal: no fs/* or terminal/* requests, the agent works on the disk', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'a.txt'), 'one\n');
    const { server, agent } = await startAgent(
      script([
        {
          calls: [
            ['read_file', { path: 'a.txt' }],
            ['write_file', { path: 'a.txt', content: 'two\n' }],
            ['run_command', { command: 'cat a.txt' }],
          ],
        },
        { text: 'done' },
      ]),
      { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    );
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
    await agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'go' }] });
    expect(agent.messages.some((m) => /^(fs|terminal)\//.test(m.method ?? ''))).toBe(false);
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('two\n');
    const tools = server.requests[1]!.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content);
    expect(tools[0]).toContain('one');
    expect(tools[2]).toContain('two');
  });

  it('a client with fs: paths outside the workspace are refused before any fs request; a missing file is said so', async () => {
    const cwd = tempDir();
    const outside = tempDir();
    const { server, agent } = await startAgent(
      script([
        {
          calls: [
            ['read_file', { path: join(outside, 'x.txt') }],
            ['write_file', { path: '../escape.txt', content: 'x' }],
            ['read_file', { path: 'missing.txt' }],
          ],
        },
        { text: 'ok' },
      ]),
      { fs: { readTextFile: true, writeTextFile: true } },
    );
    const written: Array<{ path: string; content: string }> = [];
    fakeEditor(agent, {}, written);
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
    expect((await agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'go' }] })).result.stopReason).toBe('end_turn');
    const reads = agent.messages.filter((m) => m.method === 'fs/read_text_file').map((m) => m.params.path);
    expect(reads).toEqual([join(cwd, 'missing.txt')]);
    expect(written).toEqual([]);
    const tools = server.requests[1]!.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content);
    expect(tools[0]).toMatch(/outside/i);
    expect(tools[1]).toMatch(/outside/i);
    expect(tools[2]).toMatch(/not found|does not exist|no such/i);
  });

  it('a client with a terminal: a failing command reports its exit code and output to the model, then the terminal is released', async () => {
    const cwd = tempDir();
    const { server, agent } = await startAgent(script([{ calls: [['run_command', { command: 'make test' }]] }, { text: 'it failed' }]), { terminal: true });
    let seen = 0;
    agent.child.stdout.on('data', () => {
      for (; seen < agent.messages.length; seen++) {
        const m = agent.messages[seen];
        if (m.method === 'terminal/create') answer(agent, m.id, { terminalId: 't-9' });
        else if (m.method === 'terminal/wait_for_exit') answer(agent, m.id, { exitCode: 2, signal: null });
        else if (m.method === 'terminal/output')
          answer(agent, m.id, { output: 'error: 3 tests failed\n', truncated: false, exitStatus: { exitCode: 2, signal: null } });
        else if (m.method === 'terminal/release' || m.method === 'terminal/kill') answer(agent, m.id, {});
      }
    });
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
    expect((await agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'test' }] })).result.stopReason).toBe(
      'end_turn',
    );
    const tool = server.requests[1]!.body.messages.find((m: any) => m.role === 'tool').content;
    expect(tool).toContain('3 tests failed');
    expect(tool).toMatch(/exit code 2|exited with 2|code 2/i);
    const methods = agent.messages.filter((m) => m.method?.startsWith('terminal/')).map((m) => m.method);
    expect(methods.at(-1)).toBe('terminal/release');
    expect(methods).not.toContain('terminal/kill');
    // The last update of the call, sent before the release, still embeds the terminal.
    const releaseAt = agent.messages.findIndex((m) => m.method === 'terminal/release');
    const last = agent.messages
      .slice(0, releaseAt)
      .filter((m) => m.method === 'session/update' && m.params.update.sessionUpdate === 'tool_call_update')
      .at(-1);
    expect(last.params.update.status).toBe('failed');
    expect(last.params.update.content).toContainEqual({ type: 'terminal', terminalId: 't-9' });
  });
});
