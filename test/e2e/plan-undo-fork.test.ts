/**
 * Plans, plan mode, /undo and session/fork end to end with the built CLI, as an editor would use
 * them, against a scripted model on loopback: the client receives `plan` updates (again after
 * `session/load`); plan mode refuses edits without asking, asks to start once there is a plan and
 * announces the switch; two turns of edits (through a client's fs, and on local files) are taken
 * back by /undo twice after a restart; /undo refuses after an outside change; a fork diverges from
 * its source; two text blocks reach the model apart.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeServerPool } from '../helpers/fake-openai.js';
import { spawnAgent, type AgentProcess } from '../helpers/spawn-agent.js';
import { answer, script, tempDirs } from '../helpers/tool-script.js';
import { sharedAgentPerFile } from '../helpers/shared-agent.js';
import { BUILTIN_TOOL_NAMES } from '../../src/tools/index.js';

const servers = fakeServerPool();
const tempDir = tempDirs('openai-acp-plan-undo-');
const agents: AgentProcess[] = [];
/** The clients answering for the case: removed after it, so a shared agent's next case starts with none. */
const listening: (() => void)[] = [];
afterEach(() => {
  for (const stop of listening.splice(0)) stop();
  for (const agent of agents.splice(0)) agent.kill();
});

/** Answers the agent's requests to the client with `handlers` (by method), as they arrive, until the case ends. */
function client(agent: AgentProcess, handlers: Record<string, (params: any) => unknown>): void {
  // A shared agent's recorded messages start afresh for each case: read from the start again then.
  let seen = 0;
  const onData = () => {
    if (seen > agent.messages.length) seen = 0;
    for (; seen < agent.messages.length; seen++) {
      const m = agent.messages[seen];
      const handler = m.method && m.id !== undefined ? handlers[m.method] : undefined;
      if (!handler) continue;
      try {
        answer(agent, m.id, handler(m.params));
      } catch (error) {
        agent.writeLine(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32002, message: (error as Error).message } }));
      }
    }
  };
  agent.child.stdout.on('data', onData);
  listening.push(() => agent.child.stdout.off('data', onData));
}

/** An editor whose buffers are the disk files (as acpx): reads and writes go to the disk. */
const diskEditor = {
  'fs/read_text_file': (p: any) => ({ content: readFileSync(p.path, 'utf8') }),
  'fs/write_text_file': (p: any) => {
    mkdirSync(dirname(p.path), { recursive: true });
    writeFileSync(p.path, p.content);
    return {};
  },
};

async function startAgent(baseUrl: string, stateDir: string, clientCapabilities: Record<string, unknown> = {}) {
  const agent = spawnAgent({ OPENAI_BASE_URL: baseUrl, OPENAI_MODEL: 'test-model', OPENAI_ACP_STATE_DIR: stateDir, OPENAI_MAX_RETRIES: '0' });
  agents.push(agent);
  await agent.request('initialize', { protocolVersion: 1, clientCapabilities });
  return agent;
}

/**
 * One agent for the cases that neither restart it nor need client capabilities (plan mode, fork):
 * the settings of {@link startAgent}, its sessions saved in one directory of the file's.
 */
const sharedAgent = sharedAgentPerFile({ env: { OPENAI_ACP_STATE_DIR: tempDir(), OPENAI_MAX_RETRIES: '0' } });

const prompt = (agent: AgentProcess, sessionId: string, text: string) => agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
const lastText = (agent: AgentProcess, sessionId: string) =>
  agent
    .updates(sessionId)
    .filter((u) => u.sessionUpdate === 'agent_message_chunk')
    .at(-1)?.content.text as string;
const userTexts = (body: any) => body.messages.filter((m: any) => m.role === 'user').map((m: any) => m.content);

describe('plans and plan mode', () => {
  it('plan mode refuses edits unasked, sends the plan, asks to start, switches and announces it; the plan comes back on session/load', async () => {
    const cwd = tempDir();
    const { server, agent } = await sharedAgent(
      script([
        {
          calls: [
            ['write_file', { path: 'x.txt', content: 'too early' }],
            ['update_plan', { entries: [{ status: 'done' }] }],
          ],
        },
        {
          calls: [
            [
              'update_plan',
              {
                entries: [
                  { content: 'Write x.txt', status: 'pending' },
                  { content: 'Check it', status: 'pending', priority: 'low' },
                ],
              },
            ],
          ],
        },
        {
          calls: [
            ['write_file', { path: 'x.txt', content: 'planned\n' }],
            [
              'update_plan',
              {
                entries: [
                  { content: 'Write x.txt', status: 'completed' },
                  { content: 'Check it', status: 'in_progress', priority: 'low' },
                ],
              },
            ],
          ],
        },
        { text: 'Done.' },
      ]),
    );
    client(agent, { 'session/request_permission': () => ({ outcome: { outcome: 'selected', optionId: 'plan_start_accept_edits' } }) });
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    const sessionId = result.sessionId;
    expect(result.modes.availableModes.map((m: any) => m.id)).toContain('plan');
    await agent.request('session/set_mode', { sessionId, modeId: 'plan' });
    expect((await prompt(agent, sessionId, 'plan then write x.txt')).result.stopReason).toBe('end_turn');

    // In plan mode: the same tools as in every mode, the mode told in front of the prompt; the write refused without a question.
    expect(server.requests[0]!.body.tools.map((t: any) => t.function.name)).toEqual([...BUILTIN_TOOL_NAMES]);
    expect(userTexts(server.requests[0]!.body)[0]).toMatch(/^\[Session mode: Plan\. No edits or commands yet[^\n]*\]\n\nplan then write x\.txt$/);
    const results = server.requests[1]!.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content);
    expect(results[0]).toMatch(/plan mode/);
    expect(results[1]).toMatch(/entry 1 has no "content"/);
    const asked = agent.messages.filter((m) => m.method === 'session/request_permission');
    expect(asked).toHaveLength(1);
    expect(asked[0].params.options.map((o: any) => o.optionId)).toEqual(['plan_start_accept_edits', 'plan_start_ask', 'plan_keep_planning']);
    expect(asked[0].params.toolCall).toMatchObject({
      title: 'Start on this plan?',
      content: [{ type: 'content', content: { type: 'text', text: '[ ] Write x.txt\n[ ] Check it' } }],
    });

    // Plans: the bad call sent none; the two good ones, whole lists with a priority each.
    const updates = agent.updates(sessionId);
    const plans = updates.filter((u) => u.sessionUpdate === 'plan');
    expect(plans.map((p) => p.entries)).toEqual([
      [
        { content: 'Write x.txt', status: 'pending', priority: 'medium' },
        { content: 'Check it', status: 'pending', priority: 'low' },
      ],
      [
        { content: 'Write x.txt', status: 'completed', priority: 'medium' },
        { content: 'Check it', status: 'in_progress', priority: 'low' },
      ],
    ]);
    // The approval switched the mode, announced both ways, and the next request offered the edit tools.
    const modeAt = updates.findIndex((u) => u.sessionUpdate === 'current_mode_update');
    expect(updates[modeAt]).toEqual({ sessionUpdate: 'current_mode_update', currentModeId: 'accept-edits' });
    expect(updates[modeAt + 1].configOptions.find((o: any) => o.id === 'mode').currentValue).toBe('accept-edits');
    expect(server.requests[2]!.body.tools.map((t: any) => t.function.name)).toContain('write_file');
    expect(server.requests[2]!.body.messages.at(-1).content).toMatch(/approved the plan.*accept-edits/);
    expect(readFileSync(join(cwd, 'x.txt'), 'utf8')).toBe('planned\n');

    const loaded = await agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    expect(loaded.result.modes.currentModeId).toBe('accept-edits');
    const replayed = agent
      .updates(sessionId)
      .slice(updates.length)
      .filter((u) => u.sessionUpdate === 'plan');
    expect(replayed.at(-1).entries).toEqual(plans.at(-1).entries);
  });
});

describe('/undo', () => {
  for (const where of ['client fs', 'local files'] as const) {
    it(`${where}: two turns of edits undone one by one after a restart; refused after an outside change`, async () => {
      const cwd = tempDir();
      const stateDir = tempDir();
      const a = join(cwd, 'a.txt');
      writeFileSync(a, 'one\r\ntwo\n');
      const capabilities = where === 'client fs' ? { fs: { readTextFile: true, writeTextFile: true } } : {};
      const server = await servers(
        script([
          {
            calls: [
              ['edit_file', { path: 'a.txt', old_string: 'one', new_string: 'ONE' }],
              ['write_file', { path: 'new1.txt', content: 'first\n' }],
            ],
          },
          { text: 'turn 1 done' },
          {
            calls: [
              ['write_file', { path: 'a.txt', content: 'replaced\n' }],
              ['write_file', { path: 'sub/new2.txt', content: 'second\n' }],
              ['run_command', { command: 'echo hi' }],
            ],
          },
          { text: 'turn 2 done' },
        ]),
      );
      const first = await startAgent(server.baseUrl, stateDir, capabilities);
      if (where === 'client fs') client(first, diskEditor);
      const sessionId = (await first.request('session/new', { cwd, mcpServers: [] })).result.sessionId;
      await first.request('session/set_mode', { sessionId, modeId: 'full-access' });
      await prompt(first, sessionId, 'turn one');
      await prompt(first, sessionId, 'turn two');
      expect(readFileSync(a, 'utf8')).toBe('replaced\n');
      expect(readFileSync(join(cwd, 'sub', 'new2.txt'), 'utf8')).toBe('second\n');
      // New files are not read through the client first (it would answer "not found" as an error).
      const reads = first.messages.filter((m) => m.method === 'fs/read_text_file').map((m) => m.params.path);
      expect(reads.filter((path) => path.includes('new'))).toEqual([]);
      first.child.stdin.end();
      await first.exited;

      const second = await startAgent(server.baseUrl, stateDir, capabilities);
      if (where === 'client fs') client(second, diskEditor);
      await second.request('session/load', { sessionId, cwd, mcpServers: [] });
      const requestsBefore = server.requests.length;
      expect((await prompt(second, sessionId, '/undo')).result.stopReason).toBe('end_turn');
      expect(readFileSync(a, 'utf8')).toBe('ONE\r\ntwo\n');
      expect(existsSync(join(cwd, 'sub', 'new2.txt'))).toBe(false);
      expect(existsSync(join(cwd, 'new1.txt'))).toBe(true);
      expect(lastText(second, sessionId)).toMatch(/Restored: a\.txt[\s\S]*Removed.*sub\/new2\.txt[\s\S]*`echo hi`.*cannot be undone/);
      // The restore went through the same backend as the writes.
      const restores = second.messages.filter((m) => m.method === 'fs/write_text_file');
      expect(restores.map((m) => m.params.path)).toEqual(where === 'client fs' ? [a] : []);

      await prompt(second, sessionId, '/undo');
      expect(readFileSync(a, 'utf8')).toBe('one\r\ntwo\n');
      expect(existsSync(join(cwd, 'new1.txt'))).toBe(false);
      await prompt(second, sessionId, '/undo');
      expect(lastText(second, sessionId)).toMatch(/^Nothing to undo/);
      expect(server.requests.length).toBe(requestsBefore);
      // No turn had a plan: no /undo sent a plan update (an empty one shows as an empty plan block).
      expect(second.updates(sessionId).filter((update) => update.sessionUpdate === 'plan')).toEqual([]);

      // The conversation lost both turns; a new turn edits, someone else changes the file, /undo refuses.
      server.handle(script([{ calls: [['edit_file', { path: 'a.txt', old_string: 'two', new_string: 'TWO' }]] }, { text: 'turn 3 done' }]));
      await prompt(second, sessionId, 'turn three');
      // The undone turns took the mode's note with them: it is told again.
      expect(userTexts(server.requests.at(-2)!.body)).toEqual(['[Session mode: Full access. Edits and commands run without asking.]\n\nturn three']);
      writeFileSync(a, 'changed by the user\n');
      await prompt(second, sessionId, '/undo');
      expect(lastText(second, sessionId)).toMatch(/\/undo stopped: a\.txt was changed since that turn/);
      expect(readFileSync(a, 'utf8')).toBe('changed by the user\n');
    });
  }
});

describe('session/fork', () => {
  it('forks the conversation; both sessions go on apart; unknown ids are refused; text blocks reach the model apart', async () => {
    const cwd = tempDir();
    let n = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const {
      server,
      agent,
      init: initialized,
    } = await sharedAgent(async (req, res, body) => {
      // The source's second prompt is held, so a fork is made while that turn runs.
      if (JSON.stringify(body.messages.at(-1)).includes('in the source')) await held;
      script([{ text: `answer ${++n}` }])(req, res, body);
    });
    const init = initialized.result;
    expect(init.agentCapabilities.sessionCapabilities.fork).toEqual({});
    const source = (await agent.request('session/new', { cwd, mcpServers: [] })).result.sessionId;
    await agent.request('session/set_mode', { sessionId: source, modeId: 'read-only' });
    await agent.request('session/prompt', {
      sessionId: source,
      prompt: [
        { type: 'text', text: 'count slowly' },
        { type: 'text', text: 'after cancel, still alive?' },
      ],
    });
    // The mode is told in front of the first prompt, and the forks keep that turn as it was sent.
    const first = '[Session mode: Read only. You cannot edit files or run commands; say what you would change.]\n\ncount slowly\n\nafter cancel, still alive?';
    expect(userTexts(server.requests[0]!.body)).toEqual([first]);

    const forked = await agent.request('session/fork', { sessionId: source, cwd, mcpServers: [] });
    const fork = forked.result.sessionId;
    expect(fork).not.toBe(source);
    expect(forked.result.modes.currentModeId).toBe('read-only');
    await prompt(agent, fork, 'in the fork');
    const running = prompt(agent, source, 'in the source');
    while (server.requests.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    const during = (await agent.request('session/fork', { sessionId: source, cwd, mcpServers: [] })).result.sessionId;
    release();
    await running;
    await prompt(agent, during, 'in the second fork');
    expect(userTexts(server.requests[1]!.body)).toEqual([first, 'in the fork']);
    expect(userTexts(server.requests[2]!.body)).toEqual([first, 'in the source']);
    // Forked while that turn ran: the state as of the last finished turn.
    expect(userTexts(server.requests[3]!.body)).toEqual([first, 'in the second fork']);
    const listed = (await agent.request('session/list', {})).result.sessions.map((s: any) => s.sessionId);
    expect(listed).toEqual(expect.arrayContaining([source, fork, during]));

    const unknown = await agent.request('session/fork', { sessionId: 'no-such-session', cwd, mcpServers: [] });
    // A session this connection does not hold is unknown to it: -32002 with its id (acp/session-authority.ts).
    expect(unknown.error).toMatchObject({ code: -32002, data: { sessionId: 'no-such-session' } });
    expect(unknown.error.message).toContain('no-such-session');
    await agent.request('session/close', { sessionId: source });
    const closed = await agent.request('session/fork', { sessionId: source, cwd, mcpServers: [] });
    expect(closed.error).toMatchObject({ code: -32002, data: { sessionId: source } });
    expect(closed.error.message).toContain(source);
  });
});
