/**
 * Instructions and commands end to end with the built CLI: nested AGENTS.md and CLAUDE.md (and
 * the user-wide AGENTS.md of the config directory) reach the first request in order; project and
 * user command files are advertised and expand with arguments, and a changed folder is advertised
 * again; an MCP server's prompt runs as `/<server>:<prompt>`; `/init` writes AGENTS.md through
 * the client's fs after asking permission.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeServerPool, type ChatHandler } from '../helpers/fake-openai.js';
import { SCRATCH_HOME, spawnAgent, waitFor, type AgentProcess } from '../helpers/spawn-agent.js';
import { sharedAgentPerFile } from '../helpers/shared-agent.js';
import { answer, script, tempDirs, waitForRequest } from '../helpers/tool-script.js';
import { stdioServer } from '../tools/mcp/helpers.js';

const servers = fakeServerPool();
const tempDir = tempDirs('openai-acp-instructions-');
const agents: AgentProcess[] = [];
afterEach(() => {
  for (const agent of agents.splice(0)) agent.kill();
});

function write(root: string, tree: Record<string, string>): void {
  for (const [path, text] of Object.entries(tree)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** The agent with its config directory in a temp dir of the test (never the real home). */
async function startAgent(handler: ChatHandler, configHome: string, clientCapabilities: Record<string, unknown> = {}) {
  const server = await servers(handler);
  const agent = spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_ACP_STATE_DIR: 'off', XDG_CONFIG_HOME: configHome });
  agents.push(agent);
  await agent.request('initialize', { protocolVersion: 1, clientCapabilities });
  return { server, agent };
}

/**
 * One agent for the MCP prompt cases, which need no config of their own (no user commands or
 * instructions: its config directory does not exist) and no client capabilities; each case opens
 * its own session with its own MCP server.
 */
const sharedMcpAgent = sharedAgentPerFile({ env: { XDG_CONFIG_HOME: join(SCRATCH_HOME, 'mcp-cases-config') } });

const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : (content as { type: string; text?: string }[]).map((part) => part.text ?? '').join('');
const lastUser = (body: any): string => textOf(body.messages.filter((m: any) => m.role === 'user').at(-1).content);
const commandLists = (agent: AgentProcess, sessionId: string) =>
  agent
    .updates(sessionId)
    .filter((u) => u.sessionUpdate === 'available_commands_update')
    .map((u) => u.availableCommands);

describe('instruction files and user commands', () => {
  it('sends nested instructions in order, advertises and expands project and user commands, and notices a new command file', async () => {
    const top = tempDir();
    write(top, {
      'config/openai-acp/AGENTS.md': 'USER-WIDE: answer in English.',
      'config/openai-acp/commands/daily.md': '---\ndescription: Daily summary\n---\nSummarize what changed today.',
      'config/openai-acp/commands/review.md': 'user review (shadowed by the project one)',
      'repo/.git/HEAD': 'ref: refs/heads/main\n',
      'repo/AGENTS.md': 'ROOT: run npm test.',
      'repo/packages/CLAUDE.md': 'PACKAGES: use pnpm.',
      'repo/packages/app/AGENTS.md': 'APP: React components live in src/ui.',
      'repo/packages/app/.openai-acp/commands/review.md':
        '---\ndescription: Review a part of the code\nargument-hint: <part> [focus]\n---\nReview $1 with focus on: $2. Everything: $ARGUMENTS',
      'repo/packages/app/.claude/commands/explain.md': 'Explain this code.',
      'repo/packages/app/.claude/commands/broken.md': '---\ndescription: never closed\n',
    });
    const cwd = join(top, 'repo/packages/app');
    const { server, agent } = await startAgent(script([{ text: 'ok' }]), join(top, 'config'));
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    const sessionId = result.sessionId;
    await waitFor(() => commandLists(agent, sessionId).length > 0, 5000, 'available_commands_update');
    const [first] = commandLists(agent, sessionId);
    expect(first.map((c: any) => c.name)).toEqual(['clear', 'compact', 'undo', 'help', 'init', 'review', 'explain', 'daily']);
    expect(first.find((c: any) => c.name === 'review')).toEqual({
      name: 'review',
      description: 'Review a part of the code (project)',
      input: { hint: '<part> [focus]' },
    });
    expect(first.find((c: any) => c.name === 'daily').description).toBe('Daily summary (user)');
    expect(agent.stderr()).toContain(`the command file ${join(cwd, '.claude/commands/broken.md')} is skipped: its front matter has no closing ---`);

    await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] });
    const system = textOf(server.requests[0]!.body.messages[0].content);
    const order = ['USER-WIDE', 'ROOT', 'PACKAGES', 'APP'].map((marker) => system.indexOf(marker));
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(system).toContain(`Instructions from ${join(top, 'config/openai-acp/AGENTS.md')}, ../../AGENTS.md, ../CLAUDE.md, AGENTS.md`);

    await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/review parser "speed and memory"' }] });
    expect(lastUser(server.requests[1]!.body)).toBe('Review parser with focus on: speed and memory. Everything: parser "speed and memory"');
    await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/daily' }] });
    expect(lastUser(server.requests[2]!.body)).toBe('Summarize what changed today.');

    // A new file is advertised at the start of the next turn, before its answer, and works at once.
    write(cwd, { '.openai-acp/commands/ship.md': 'Ship version $1.' });
    await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/ship 2.0' }] });
    expect(
      commandLists(agent, sessionId)
        .at(-1)
        .map((c: any) => c.name),
    ).toContain('ship');
    expect(lastUser(server.requests[3]!.body)).toBe('Ship version 2.0.');
    // An unknown command goes to the model as typed.
    await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/nope at all' }] });
    expect(lastUser(server.requests[4]!.body)).toBe('/nope at all');
  });

  it("runs an MCP server's prompt as /<server>:<prompt>, arguments by position or name", async () => {
    const top = tempDir();
    const { server, agent } = await sharedMcpAgent(script([{ text: 'hello Ada' }]));
    const { result } = await agent.request('session/new', { cwd: top, mcpServers: [stdioServer('fx')] });
    const sessionId = result.sessionId;
    await waitFor(() => commandLists(agent, sessionId).length > 0, 5000, 'available_commands_update');
    expect(commandLists(agent, sessionId)[0].find((c: any) => c.name === 'fx:greet')).toEqual({
      name: 'fx:greet',
      description: 'Greets someone (MCP server fx)',
      input: { hint: '<name> [mood]' },
    });
    await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/fx:greet Ada' }] });
    expect(lastUser(server.requests[0]!.body)).toBe('Say hello to Ada.');
    await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/fx:greet mood=cheerful Grace' }] });
    expect(lastUser(server.requests[1]!.body)).toBe('Say hello to Grace in a cheerful mood.');
    // A missing required argument is explained; nothing is sent to the model.
    const answered = await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/fx:greet' }] });
    expect(answered.result.stopReason).toBe('end_turn');
    expect(agent.text(sessionId)).toContain('/fx:greet: missing name. Usage: /fx:greet <name> [mood]');
    expect(server.requests).toHaveLength(2);
  });

  it('session/load shows an expanded command as the user typed it (the model still reads the expansion); the title is the typed line', async () => {
    const top = tempDir();
    write(top, { 'repo/.openai-acp/commands/review.md': 'Review $1 very carefully, file by file.' });
    const cwd = join(top, 'repo');
    const server = await servers(script([{ text: 'reviewed' }, { text: 'again' }]));
    const agent = spawnAgent({
      OPENAI_BASE_URL: server.baseUrl,
      OPENAI_MODEL: 'test-model',
      OPENAI_ACP_STATE_DIR: join(top, 'state'),
      XDG_CONFIG_HOME: join(top, 'config'),
    });
    agents.push(agent);
    await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    const sessionId = result.sessionId;
    await waitFor(() => commandLists(agent, sessionId).length > 0, 5000, 'available_commands_update');
    await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/review parser' }] });
    const titles = agent.updates(sessionId).filter((u) => u.sessionUpdate === 'session_info_update');
    expect(titles.at(-1).title).toBe('/review parser');
    const before = agent.updates(sessionId).length;
    await agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    const shown = agent
      .updates(sessionId)
      .slice(before)
      .filter((u) => u.sessionUpdate === 'user_message_chunk');
    expect(shown.map((u) => u.content.text)).toEqual(['/review parser']);
    await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'and now?' }] });
    expect(textOf(server.requests[1]!.body.messages.find((m: any) => m.role === 'user').content)).toBe('Review parser very carefully, file by file.');
  });

  it('a cancel while an MCP prompt is fetched answers the prompt cancelled, and the session goes on', async () => {
    const top = tempDir();
    const { server, agent } = await sharedMcpAgent(script([{ text: 'still here' }]));
    const { result } = await agent.request('session/new', { cwd: top, mcpServers: [stdioServer('fx')] });
    const sessionId = result.sessionId;
    await waitFor(() => commandLists(agent, sessionId).some((list) => list.some((c: any) => c.name === 'fx:slow')), 5000, 'fx:slow advertised');
    const pending = agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/fx:slow' }] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    agent.notify('session/cancel', { sessionId });
    const answered = await pending;
    expect(answered.error).toBeUndefined();
    expect(answered.result.stopReason).toBe('cancelled');
    expect(server.requests).toHaveLength(0);
    expect((await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })).result.stopReason).toBe('end_turn');
  });

  it('/init asks the model to survey the project and writes AGENTS.md through the client fs after permission', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'package.json'), '{"scripts":{"test":"vitest"}}');
    const content = '# AGENTS.md\n\n- Test: npm test\n';
    const { server, agent } = await startAgent(
      script([{ calls: [['read_file', { path: 'package.json' }]] }, { calls: [['write_file', { path: 'AGENTS.md', content }]] }, { text: 'Wrote AGENTS.md.' }]),
      join(cwd, 'config'),
      { fs: { readTextFile: true, writeTextFile: true } },
    );
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    // The editor's side of reads: package.json is open in it, AGENTS.md does not exist yet.
    let seen = 0;
    agent.child.stdout.on('data', () => {
      for (; seen < agent.messages.length; seen++) {
        const m = agent.messages[seen];
        if (m.method !== 'fs/read_text_file') continue;
        if (m.params.path === join(cwd, 'package.json')) answer(agent, m.id, { content: '{"scripts":{"test":"vitest"}}' });
        else agent.writeLine(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32002, message: `not found: ${m.params.path}` } }));
      }
    });
    const pending = agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: '/init' }] });
    const permission = await waitForRequest(agent, 'session/request_permission');
    expect(permission.params.toolCall.title).toBe('Write AGENTS.md');
    expect(permission.params.toolCall.content).toEqual([{ type: 'diff', path: join(cwd, 'AGENTS.md'), oldText: null, newText: content }]);
    answer(agent, permission.id, { outcome: { outcome: 'selected', optionId: 'allow_once' } });
    const write = await waitForRequest(agent, 'fs/write_text_file');
    expect(write.params).toEqual({ sessionId: result.sessionId, path: join(cwd, 'AGENTS.md'), content });
    answer(agent, write.id, {});
    expect((await pending).result.stopReason).toBe('end_turn');
    expect(lastUser(server.requests[0]!.body)).toMatch(/^Write an AGENTS\.md for this project/);
    expect(server.requests[0]!.body.tools.map((t: any) => t.function.name)).toContain('write_file');
  });
});
