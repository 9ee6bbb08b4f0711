/**
 * Tool steps across processes: a turn with tool calls is saved by one process, `session/load` in
 * another (started before the save, so it reads what was saved) replays it as `tool_call` + `tool_call_update`, and the next model request carries the
 * assistant `tool_calls` and `tool` messages in order; the session mode and an `allow_always`
 * choice survive the load.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatHandler, FakeOpenAI } from '../helpers/fake-openai.js';
import { spawnAgent, type AgentProcess } from '../helpers/spawn-agent.js';
import { sharedAgentPerFile } from '../helpers/shared-agent.js';
import { answer, script, tempDirs, waitForRequest } from '../helpers/tool-script.js';

const tempDir = tempDirs('openai-acp-tool-sessions-');
const agents: AgentProcess[] = [];
afterEach(() => {
  for (const agent of agents.splice(0)) agent.kill();
});

/** An agent on the model at `baseUrl`, keeping sessions in `stateDir`, initialized. */
async function startAgent(baseUrl: string, stateDir: string) {
  const agent = spawnAgent({ OPENAI_BASE_URL: baseUrl, OPENAI_MODEL: 'test-model', OPENAI_ACP_STATE_DIR: stateDir });
  agents.push(agent);
  await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  return agent;
}

/**
 * The file's model server and state directory: each case sets the model's handler (its recorded
 * requests start afresh), saves its sessions with a process of its own and loads them in the
 * file's loading process, {@link loader}, which started before the case saved anything.
 */
const stateDir = tempDir();
const sharedLoader = sharedAgentPerFile({ env: { OPENAI_ACP_STATE_DIR: stateDir } });
let loading: AgentProcess | undefined;
async function savedIn(handler: ChatHandler): Promise<{ server: FakeOpenAI; stateDir: string }> {
  const { server, agent } = await sharedLoader(handler);
  loading = agent;
  return { server, stateDir };
}

/** The file's loading process (a process start costs ~0.3 s of CPU), its recorded messages started afresh. */
function loader(): AgentProcess {
  loading!.messages.length = 0;
  return loading!;
}

/** Ends the agent as a client does (stdin EOF) and waits for it to exit. */
async function end(agent: AgentProcess): Promise<void> {
  agent.child.stdin.end();
  await agent.exited;
}

describe('tool steps saved and loaded', () => {
  it('replays a tool turn after session/load and sends it to the model in order', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'notes.txt'), 'alpha\nbeta\n');
    const { server, stateDir } = await savedIn(
      script([{ calls: [['read_file', { path: 'notes.txt' }]] }, { text: 'It says alpha.' }, { text: 'Second answer.' }]),
    );
    const first = await startAgent(server.baseUrl, stateDir);
    const { result } = await first.request('session/new', { cwd, mcpServers: [] });
    const sessionId = result.sessionId;
    expect((await first.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read notes' }] })).result.stopReason).toBe('end_turn');
    const shown = first
      .updates(sessionId)
      .filter((u) => u.sessionUpdate === 'tool_call_update')
      .at(-1);
    await end(first);

    const second = loader();
    const loaded = await second.request('session/load', { sessionId, cwd, mcpServers: [] });
    expect(loaded.error).toBeUndefined();
    const replay = second.updates(sessionId);
    const kinds = replay
      .map((u) => u.sessionUpdate)
      .filter((k) => k !== 'available_commands_update' && k !== 'config_option_update' && k !== 'usage_update' && k !== 'session_info_update');
    expect(kinds).toEqual(['user_message_chunk', 'tool_call', 'tool_call_update', 'agent_message_chunk']);
    const call = replay.find((u) => u.sessionUpdate === 'tool_call');
    expect(call).toMatchObject({ kind: 'read', title: expect.stringContaining('notes.txt'), rawInput: { path: 'notes.txt' } });
    const done = replay.find((u) => u.sessionUpdate === 'tool_call_update');
    expect(done).toMatchObject({ toolCallId: call.toolCallId, status: 'completed' });
    expect(JSON.stringify(done.content)).toContain('alpha');
    expect(done.content).toEqual(shown.content);

    await second.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'and now?' }] });
    const sent = server.requests.at(-1)!.body.messages.filter((m: any) => m.role !== 'system');
    expect(sent.map((m: any) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect(sent[1]).toMatchObject({ tool_calls: [{ type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) } }] });
    expect(sent[2].tool_call_id).toBe(sent[1].tool_calls[0].id);
    expect(sent[2].content).toContain('alpha');
    expect(sent[3].content).toBe('It says alpha.');
    expect(sent[4].content).toBe('and now?');
  });

  it('keeps the mode and an allow_always choice across session/load', async () => {
    const cwd = tempDir();
    const { server, stateDir } = await savedIn(
      script([
        { calls: [['run_command', { command: 'echo first' }]] },
        { text: 'ran it' },
        { calls: [['run_command', { command: 'echo second-run' }]] },
        { text: 'ran again' },
      ]),
    );
    const first = await startAgent(server.baseUrl, stateDir);
    const { result } = await first.request('session/new', { cwd, mcpServers: [] });
    const sessionId = result.sessionId;
    await first.request('session/set_mode', { sessionId, modeId: 'accept-edits' });
    const pending = first.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'run' }] });
    const permission = await waitForRequest(first, 'session/request_permission');
    answer(first, permission.id, { outcome: { outcome: 'selected', optionId: 'allow_always' } });
    expect((await pending).result.stopReason).toBe('end_turn');
    await end(first);

    const second = loader();
    const loaded = await second.request('session/load', { sessionId, cwd, mcpServers: [] });
    expect(loaded.result.modes.currentModeId).toBe('accept-edits');
    expect(loaded.result.configOptions.find((o: any) => o.category === 'mode').currentValue).toBe('accept-edits');
    const answered = await second.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'run again' }] });
    expect(answered.result.stopReason).toBe('end_turn');
    expect(second.messages.some((m) => m.method === 'session/request_permission')).toBe(false);
    expect(
      server.requests
        .at(-1)!
        .body.messages.filter((m: any) => m.role === 'tool')
        .at(-1).content,
    ).toContain('second-run');
  });

  it('a turn cancelled during a permission request is saved with its call marked not run, and loads into a valid history', async () => {
    const cwd = tempDir();
    const { server, stateDir } = await savedIn(
      script([
        {
          calls: [
            ['write_file', { path: 'a.txt', content: 'x' }],
            ['run_command', { command: 'echo hi' }],
          ],
        },
        { text: 'fresh start' },
      ]),
    );
    const first = await startAgent(server.baseUrl, stateDir);
    const { result } = await first.request('session/new', { cwd, mcpServers: [] });
    const sessionId = result.sessionId;
    const pending = first.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'do both' }] });
    await waitForRequest(first, 'session/request_permission');
    first.notify('session/cancel', { sessionId });
    expect((await pending).result.stopReason).toBe('cancelled');
    await end(first);

    const second = loader();
    expect((await second.request('session/load', { sessionId, cwd, mcpServers: [] })).error).toBeUndefined();
    const replayed = second.updates(sessionId).filter((u) => u.sessionUpdate === 'tool_call_update');
    // Replay shows what the client saw: the call cancelled while asking; the second was never announced.
    expect(replayed.map((u) => u.status)).toEqual(['failed']);
    await second.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'never mind' }] });
    const sent = server.requests.at(-1)!.body.messages.filter((m: any) => m.role !== 'system');
    // The turn ended on tool results: a short assistant note closes it before the next user message.
    expect(sent.map((m: any) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant', 'user']);
    expect(sent[1].tool_calls.map((c: any) => c.id)).toEqual([sent[2].tool_call_id, sent[3].tool_call_id]);
    expect(sent[2].content).toMatch(/cancel/i);
    expect(sent[3].content).toMatch(/cancel/i);
  });
});
