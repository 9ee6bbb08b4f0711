/**
 * `session/cancel` in the middle of a tool step, over raw JSON-RPC: while a permission request is
 * pending, while a local command runs, and while a command runs in the client's terminal. Each
 * time the prompt answers `cancelled` promptly and nothing of the call is left behind.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeServerPool, type ChatHandler } from '../helpers/fake-openai.js';
import { spawnAgent, waitFor, type AgentProcess } from '../helpers/spawn-agent.js';
import { sharedAgentPerFile } from '../helpers/shared-agent.js';
import { answer, running, script, tempDirs, waitForRequest } from '../helpers/tool-script.js';

const servers = fakeServerPool();
const tempDir = tempDirs('openai-acp-cancel-');
const agents: AgentProcess[] = [];
afterEach(() => {
  for (const agent of agents.splice(0)) agent.kill();
});

/**
 * One agent (and its model server) for the cases whose client has no capabilities and that do not
 * end the agent, each case in a session of its own, the server's handler, its recorded requests and
 * the agent's recorded messages started afresh per case: a process start costs ~0.3 s of CPU.
 */
const sharedAgent = sharedAgentPerFile();
/** As {@link sharedAgent}, for the cases whose client runs commands in its terminal and files through its fs. */
const clientSideAgent = sharedAgentPerFile({ clientCapabilities: { terminal: true, fs: { readTextFile: true, writeTextFile: true } } });

async function startAgent(handler: ChatHandler) {
  const server = await servers(handler);
  const agent = spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_ACP_STATE_DIR: 'off' });
  agents.push(agent);
  await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  return { server, agent };
}

/** Cancels the session and returns the prompt's answer with the time it took, in ms. */
async function cancel(agent: AgentProcess, sessionId: string, pending: Promise<any>): Promise<{ answer: any; ms: number }> {
  const t0 = performance.now();
  agent.notify('session/cancel', { sessionId });
  const answered = await pending;
  return { answer: answered, ms: performance.now() - t0 };
}

describe('session/cancel during a tool step', () => {
  it('while session/request_permission is pending: cancelled at once, nothing written, the next prompt works', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'a.txt'), 'one\n');
    const { server, agent } = await sharedAgent(script([{ calls: [['write_file', { path: 'a.txt', content: 'two\n' }]] }, { text: 'again' }]));
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    const pending = agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'write' }] });
    const permission = await waitForRequest(agent, 'session/request_permission');
    const { answer: cancelled } = await cancel(agent, result.sessionId, pending);
    // The permission request is never answered: only the cancel can end the turn.
    expect(cancelled.result.stopReason).toBe('cancelled');
    // A late "allow" for the cancelled request must not run the write.
    answer(agent, permission.id, { outcome: { outcome: 'selected', optionId: 'allow_once' } });
    const next = await agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'hello' }] });
    expect(next.result.stopReason).toBe('end_turn');
    expect(agent.text(result.sessionId)).toContain('again');
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('one\n');
    // The cancelled call went back to the model as not run.
    expect(JSON.stringify(server.requests.at(-1)!.body.messages)).toMatch(/cancel/i);
  });

  it('while a local run_command runs: cancelled within a second and its process group is gone', async () => {
    const cwd = tempDir();
    const { agent } = await sharedAgent(script([{ calls: [['run_command', { command: 'echo $$ > pid; exec sleep 30' }]] }, { text: 'never' }]));
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
    const pending = agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'run' }] });
    await waitFor(() => existsSync(join(cwd, 'pid')) && readFileSync(join(cwd, 'pid'), 'utf8').trim() !== '', 20_000, 'the pid file');
    const pid = Number(readFileSync(join(cwd, 'pid'), 'utf8').trim());
    expect(running(pid)).toBe(true);
    const { answer: cancelled, ms } = await cancel(agent, result.sessionId, pending);
    expect(cancelled.result.stopReason).toBe('cancelled');
    // Long before the command's own end (30 s): the cancel, not the command, ended the turn.
    expect(ms).toBeLessThan(25_000);
    await waitFor(() => !running(pid), 10_000, 'the command to end');
    const update = agent
      .updates(result.sessionId)
      .filter((u) => u.sessionUpdate === 'tool_call_update')
      .at(-1);
    expect(update.status).toBe('failed');
  });

  it('while a local command that ignores SIGTERM runs: still cancelled, and killed soon after', async () => {
    const cwd = tempDir();
    const { agent } = await sharedAgent(
      script([{ calls: [['run_command', { command: "trap '' TERM; echo $$ > pid; while :; do sleep 0.05; done" }]] }, { text: 'never' }]),
    );
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
    const pending = agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'run' }] });
    await waitFor(() => existsSync(join(cwd, 'pid')) && readFileSync(join(cwd, 'pid'), 'utf8').trim() !== '', 20_000, 'the pid file');
    const pid = Number(readFileSync(join(cwd, 'pid'), 'utf8').trim());
    const { answer: cancelled } = await cancel(agent, result.sessionId, pending);
    // The command never ends by itself: only the cancel can end the turn.
    expect(cancelled.result.stopReason).toBe('cancelled');
    await waitFor(() => !running(pid), 15_000, 'the command to be killed');
  });

  it('stdin EOF while a local command that ignores SIGTERM runs: the agent exits and leaves no process behind', async () => {
    const cwd = tempDir();
    const { agent } = await startAgent(
      script([{ calls: [['run_command', { command: "trap '' TERM; echo $$ > pid; while :; do sleep 0.05; done" }]] }, { text: 'never' }]),
    );
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
    agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'run' }] }).catch(() => undefined);
    await waitFor(() => existsSync(join(cwd, 'pid')) && readFileSync(join(cwd, 'pid'), 'utf8').trim() !== '', 20_000, 'the pid file');
    const pid = Number(readFileSync(join(cwd, 'pid'), 'utf8').trim());
    agent.child.stdin.end();
    expect(await agent.exited).toBe(0);
    await waitFor(() => !running(pid), 15_000, 'the command to be killed');
  });

  it('while a command runs in the client terminal: cancelled, and the agent sends terminal/kill then terminal/release', async () => {
    const cwd = tempDir();
    const { agent } = await clientSideAgent(script([{ calls: [['run_command', { command: 'sleep 30' }]] }, { text: 'never' }]));
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
    const pending = agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'run' }] });
    const create = await waitForRequest(agent, 'terminal/create');
    expect(create.params.command).toBe('sleep 30');
    answer(agent, create.id, { terminalId: 'term-1' });
    // terminal/wait_for_exit is never answered: the command "runs" until killed.
    await waitForRequest(agent, 'terminal/wait_for_exit');
    await waitFor(
      () => agent.updates(result.sessionId).some((u) => u.content?.some?.((c: any) => c.type === 'terminal' && c.terminalId === 'term-1')),
      10_000,
      'the embedded terminal',
    );
    agent.notify('session/cancel', { sessionId: result.sessionId });
    const kill = await waitForRequest(agent, 'terminal/kill');
    expect(kill.params).toMatchObject({ sessionId: result.sessionId, terminalId: 'term-1' });
    answer(agent, kill.id, {});
    const release = await waitForRequest(agent, 'terminal/release');
    expect(release.params.terminalId).toBe('term-1');
    answer(agent, release.id, {});
    const cancelled = await pending;
    expect(cancelled.result.stopReason).toBe('cancelled');
    const order = agent.messages.filter((m) => m.method === 'terminal/kill' || m.method === 'terminal/release').map((m) => m.method);
    expect(order).toEqual(['terminal/kill', 'terminal/release']);
  });

  it('while the client has not answered fs/read_text_file: cancelled at once; a late answer is ignored', async () => {
    const cwd = tempDir();
    const { agent } = await clientSideAgent(script([{ calls: [['read_file', { path: 'a.txt' }]] }, { text: 'next turn' }]));
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    const pending = agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'read' }] });
    const read = await waitForRequest(agent, 'fs/read_text_file');
    const { answer: cancelled } = await cancel(agent, result.sessionId, pending);
    // fs/read_text_file is not answered until after: only the cancel can end the turn.
    expect(cancelled.result.stopReason).toBe('cancelled');
    answer(agent, read.id, { content: 'late' });
    const next = await agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'hello' }] });
    expect(next.result.stopReason).toBe('end_turn');
    expect(agent.badLines).toEqual([]);
  });

  it('stdin EOF while a permission request is pending: the agent exits and writes nothing', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'a.txt'), 'one\n');
    const { agent } = await startAgent(script([{ calls: [['write_file', { path: 'a.txt', content: 'two\n' }]] }, { text: 'x' }]));
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    const pending = agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'write' }] });
    await waitForRequest(agent, 'session/request_permission');
    // The permission request is never answered: only the end of stdin can end the process.
    agent.child.stdin.end();
    expect(await agent.exited).toBe(0);
    // The connection is closed: the prompt gets no answer (as for a turn without tools).
    pending.catch(() => undefined);
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('one\n');
  });
});
