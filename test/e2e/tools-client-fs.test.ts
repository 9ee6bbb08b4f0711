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
      script([{ calls: [['read_file', { path: 'a.txt' }], ['write_file', { path: 'a.txt', content: 'two\n' }], ['run_command', { command: 'cat a.txt' }]] }, { text: 'done' }]),
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
});
