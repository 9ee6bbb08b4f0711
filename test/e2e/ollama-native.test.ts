/**
 * The built CLI against a loopback Ollama (test/helpers/fake-ollama.ts) that runs the model with
 * the window each request asks for and answers an overflow as Ollama does: chat goes to the native
 * `/api/chat` with one `options.num_ctx` for the whole tool loop, falls back to `/v1` when
 * `/api/chat` is not served, aborts the request on cancel, and tells the user about memory.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOllama, type FakeOllama, type FakeOllamaOptions } from '../helpers/fake-ollama.js';
import { spawnAgent, waitFor, type AgentProcess } from '../helpers/spawn-agent.js';
import { sharedPerFile } from '../helpers/shared-agent.js';
import { tempDirs } from '../helpers/tool-script.js';
import { checkLine, cleanEnv, runCli, tempHome } from '../helpers/doctor-run-cli.js';

const tempDir = tempDirs('openai-acp-ollama-');
const servers: FakeOllama[] = [];
const agents: AgentProcess[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) agent.kill();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(options: FakeOllamaOptions, env: Record<string, string> = {}) {
  const server = await startFakeOllama(options);
  servers.push(server);
  const agent = spawnAgent({
    OPENAI_BASE_URL: server.baseUrl,
    OPENAI_PROVIDER: 'ollama',
    OPENAI_MODEL: options.model ?? 'qwen3:8b',
    OPENAI_ACP_STATE_DIR: 'off',
    ...env,
  });
  agents.push(agent);
  const cwd = tempDir();
  const sessionId = await agent.start(cwd);
  return { server, agent, sessionId, cwd };
}

/**
 * One agent against a default Ollama (its trained window, capabilities and `/api/chat` served) for
 * the cases that teach the agent nothing of the endpoint: each scripts the model's answers afresh
 * and opens its own session. A case with other server options, settings or one that makes the
 * agent learn something (a fallback, a model without tools, a window) starts its own.
 */
const sharedOllama = sharedPerFile(async () => {
  const server = await startFakeOllama({});
  const agent = spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_PROVIDER: 'ollama', OPENAI_MODEL: 'qwen3:8b', OPENAI_ACP_STATE_DIR: 'off' });
  await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  return { server, agent, close: () => server.close() };
});

/** The shared agent with the model answering by `steps`, and a new session in a new directory. */
async function startShared(steps?: FakeOllamaOptions['steps']) {
  const { server, agent } = await sharedOllama();
  server.script(steps);
  const cwd = tempDir();
  const created = await agent.request('session/new', { cwd, mcpServers: [] });
  if (!created.result?.sessionId) throw new Error(`session/new failed: ${JSON.stringify(created)}`);
  return { server, agent, sessionId: created.result.sessionId as string, cwd };
}

const prompt = (agent: AgentProcess, sessionId: string, text = 'hello', extra: object[] = []) =>
  agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }, ...extra] });
const chats = (server: FakeOllama, path = '/api/chat') => server.requests.filter((r) => r.path === path);

describe('Ollama through its native /api/chat', () => {
  it('runs a tool loop with one num_ctx (the setting, under the trained window), object arguments and tool_name, thinking and usage', async () => {
    const big = 'x'.repeat(40_000); // ~10,000 tokens: over Ollama's 4,096 default, inside 32,768
    const { server, agent, sessionId, cwd } = await startShared([{ calls: [['read_file', { path: 'big.txt' }]] }, { text: 'It is all x.' }]);
    writeFileSync(join(cwd, 'big.txt'), big);
    const answer = await prompt(agent, sessionId, 'what is in big.txt?');
    expect(answer.result.stopReason).toBe('end_turn');
    expect(agent.text(sessionId)).toContain('It is all x.');
    expect(agent.thoughts(sessionId)).toContain('Let me answer.');
    const requests = chats(server);
    expect(requests).toHaveLength(2);
    expect(requests.map((r) => r.body.options.num_ctx)).toEqual([32768, 32768]);
    expect(chats(server, '/v1/chat/completions')).toHaveLength(0);
    const second = requests[1]!.body.messages;
    const call = second.find((m: any) => m.role === 'assistant' && m.tool_calls);
    expect(call.tool_calls[0].function).toEqual({ name: 'read_file', arguments: { path: 'big.txt' } });
    const result = second.find((m: any) => m.role === 'tool');
    expect(result).toMatchObject({ tool_name: 'read_file', tool_call_id: call.tool_calls[0].id });
    expect(result.content).toContain('xxxx');
    // The meter uses the window asked for.
    const usage = agent
      .updates(sessionId)
      .filter((u) => u.sessionUpdate === 'usage_update')
      .at(-1);
    expect(usage.size).toBe(32768);
    // The 10,000-token result is cut to its share of the prompt budget, still far above a 4,096 window's.
    expect(answer.result.usage.inputTokens).toBeGreaterThan(1_000);
  });

  it('the same task through /v1 (OPENAI_ACP_OLLAMA_NUM_CTX=0) is held to the 4,096-token default: the result is cut to fit it', async () => {
    const { server, agent, sessionId, cwd } = await start(
      { steps: [{ calls: [['read_file', { path: 'big.txt' }]] }, { text: 'It is all x.' }] },
      { OPENAI_ACP_OLLAMA_NUM_CTX: '0' },
    );
    writeFileSync(join(cwd, 'big.txt'), 'x'.repeat(40_000));
    await prompt(agent, sessionId, 'what is in big.txt?');
    expect(chats(server)).toHaveLength(0);
    // Held to Ollama's default window, the file's text is cut and the task still gets done.
    const v1 = chats(server, '/v1/chat/completions');
    const result = v1.at(-1)!.body.messages.find((m: any) => m.role === 'tool');
    expect(result.content.length).toBeLessThan(8_000);
    expect(agent.text(sessionId)).toContain('It is all x.');
  });

  it('caps the window at the trained one, with one log line, and keeps it the same from prompt to prompt', async () => {
    const { server, agent, sessionId } = await start({ trained: 8192 });
    await prompt(agent, sessionId);
    await prompt(agent, sessionId, 'again');
    expect(chats(server).map((r) => r.body.options.num_ctx)).toEqual([8192, 8192]);
    expect(agent.stderr().match(/above the trained window/g)).toHaveLength(1);
  });

  it('sends think from the reasoning-effort picker, and none to a model that does not think', async () => {
    const thinking = await startShared();
    await thinking.agent.request('session/set_config_option', { sessionId: thinking.sessionId, configId: 'thought_level', value: 'none' });
    await prompt(thinking.agent, thinking.sessionId);
    expect(chats(thinking.server)[0]!.body.think).toBe(false);
    const plain = await start({ capabilities: ['completion', 'tools'] });
    await plain.agent.request('session/set_config_option', { sessionId: plain.sessionId, configId: 'thought_level', value: 'high' });
    await prompt(plain.agent, plain.sessionId);
    expect(chats(plain.server)[0]!.body).not.toHaveProperty('think');
  });

  it('sends an image as base64 in images', async () => {
    const { server, agent, sessionId } = await startShared();
    await prompt(agent, sessionId, 'what is this?', [{ type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' }]);
    const user = chats(server)[0]!.body.messages.find((m: any) => m.role === 'user');
    expect(user.images).toEqual(['iVBORw0KGgo=']);
    expect(user.content).toContain('what is this?');
  });

  it('falls back to /v1 when /api/chat is not served, remembers it, and says so once in the log', async () => {
    const { server, agent, sessionId } = await start({ chat: 'not-served' });
    await prompt(agent, sessionId);
    await prompt(agent, sessionId, 'again');
    expect(agent.text(sessionId)).toContain('Hello from Ollama');
    expect(chats(server)).toHaveLength(1);
    expect(chats(server, '/v1/chat/completions')).toHaveLength(2);
    expect(agent.stderr().match(/native \/api\/chat is not served/g)).toHaveLength(1);
  });

  it('cancel aborts the /api/chat request', async () => {
    const { server, agent, sessionId } = await startShared([{ hold: true }]);
    const aborted = server.aborted;
    const pending = prompt(agent, sessionId);
    await waitFor(() => agent.text(sessionId).includes('Thinking about it'));
    agent.notify('session/cancel', { sessionId });
    expect((await pending).result.stopReason).toBe('cancelled');
    await waitFor(() => server.aborted === aborted + 1, 5000, 'the request to be aborted');
  });

  it('a model not pulled: run `ollama pull`', async () => {
    const { agent, sessionId } = await start({ model: 'qwen3:8b' }, { OPENAI_MODEL: 'nope:1b' });
    expect((await prompt(agent, sessionId)).error.message).toContain('run `ollama pull nope:1b`');
  });

  it('out of memory at the window asked for: names the window and a smaller setting, without retrying', async () => {
    const { server, agent, sessionId } = await startShared([
      { status: 500, error: 'model requires more system memory (12.4 GiB) than is available (7.6 GiB)' },
    ]);
    const text = (await prompt(agent, sessionId)).error.message;
    expect(text).toContain('32,768-token window');
    expect(text).toMatch(/OPENAI_ACP_OLLAMA_NUM_CTX to a smaller value such as 16384/);
    expect(chats(server)).toHaveLength(1);
  });

  it('a stream that ends without its done line: what came is kept and the user is told', async () => {
    const { agent, sessionId } = await startShared([{ broken: 'Half an ans' }]);
    const answer = await prompt(agent, sessionId);
    expect(agent.text(sessionId)).toBe('Half an ans\n');
    expect(answer.error).toMatchObject({ code: -32603, message: expect.stringMatching(/broke off[\s\S]*done/), data: { kind: 'stream' } });
  });

  it('tells once when the model runs partly on the CPU at this window, with a smaller window that fits', async () => {
    const gib = 2 ** 30;
    const { agent, sessionId } = await start({ memory: { size: 10 * gib, sizeVram: 8 * gib } });
    await prompt(agent, sessionId);
    await prompt(agent, sessionId, 'again');
    const text = agent.text(sessionId);
    expect(text.match(/runs 20% on the CPU with a 32,768-token window/g)).toHaveLength(1);
    // 2 GiB over, at 144 KiB a token (36 layers × 8 KV heads × 256 × 2 bytes): 32768 − 14564 → 16384.
    expect(text).toContain('OPENAI_ACP_OLLAMA_NUM_CTX=16384 should keep it on the GPU');
  });
});

describe('what works on /v1 works natively', () => {
  it('a tool call written as text by a local model runs like a streamed one', async () => {
    const { server, agent, sessionId, cwd } = await startShared([
      { text: '<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>' },
      { text: 'It says hi.' },
    ]);
    writeFileSync(join(cwd, 'a.txt'), 'hi\n');
    await prompt(agent, sessionId, 'read a.txt');
    expect(agent.text(sessionId)).toBe('It says hi.');
    const second = chats(server)[1]!.body.messages;
    expect(second.find((m: any) => m.role === 'tool')).toMatchObject({ tool_name: 'read_file', content: expect.stringContaining('hi') });
  });

  it('a model that takes no tools: asked again without them, on the native API', async () => {
    const { server, agent, sessionId } = await start({
      steps: [{ status: 400, error: 'registry.ollama.ai/library/gemma3:4b does not support tools' }, { text: 'Plain answer.' }],
    });
    await prompt(agent, sessionId);
    expect(agent.text(sessionId)).toContain('Plain answer.');
    const [first, second] = chats(server);
    expect(first!.body.tools.length).toBeGreaterThan(0);
    expect(second!.body).not.toHaveProperty('tools');
    expect(second!.body.options.num_ctx).toBe(32768);
  });

  it('a native turn is saved and replayed by session/load in a new process', async () => {
    const server = await startFakeOllama({ steps: [{ text: 'Saved answer.' }] });
    servers.push(server);
    const stateDir = tempDir();
    const env = { OPENAI_BASE_URL: server.baseUrl, OPENAI_PROVIDER: 'ollama', OPENAI_MODEL: 'qwen3:8b', OPENAI_ACP_STATE_DIR: stateDir };
    const first = spawnAgent(env);
    agents.push(first);
    const sessionId = await first.start(tempDir());
    await prompt(first, sessionId, 'remember this');
    first.kill();
    const second = spawnAgent(env);
    agents.push(second);
    await second.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    expect((await second.request('session/load', { sessionId, cwd: tempDir(), mcpServers: [] })).error).toBeUndefined();
    expect(second.text(sessionId)).toBe('Saved answer.');
    await prompt(second, sessionId, 'and now?');
    const last = chats(server)
      .at(-1)!
      .body.messages.filter((m: any) => m.role !== 'system')
      .map((m: any) => `${m.role}: ${m.content}`);
    expect(last).toEqual(['user: remember this', 'assistant: Saved answer.', 'user: and now?']);
  });
});

describe('doctor against Ollama', () => {
  it('shows the URL chat goes to, the API used, the window asked of Ollama apart from what the server reports, each note once', async () => {
    const server = await startFakeOllama({});
    servers.push(server);
    const home = tempHome();
    const run = await runCli(['doctor'], {
      home,
      env: cleanEnv(home, { OPENAI_BASE_URL: server.baseUrl, OPENAI_PROVIDER: 'ollama', OPENAI_MODEL: 'qwen3:8b' }),
    });
    expect(run.stdout).toMatch(/chat URL\s+http:\/\/127\.0\.0\.1:\d+\/api\/chat \(Ollama's native API; /);
    expect(run.stdout).toMatch(/chat API\s+Ollama native http:\/\/127\.0\.0\.1:\d+\/api\/chat/);
    expect(run.stdout).toMatch(/window asked\s+32,768 tokens asked of Ollama \(OPENAI_ACP_OLLAMA_NUM_CTX\)/);
    expect(run.stdout).toMatch(/runtime window\s+32,768 tokens reported by the server \(\/api\/ps/);
    expect(run.stdout).toMatch(/trained window\s+40,960 tokens reported by the server \(\/api\/show\)/);
    // The window line: the one the agent asks for is not called a server report.
    expect(checkLine(run.stdout, 'context window')).toBe('✓ context window: 32,768 tokens (asked of Ollama with options.num_ctx; trained: 40,960)');
    const notes = run.stdout.split('\n').filter((line) => line.trim().startsWith('note:'));
    expect(notes.length).toBeGreaterThan(0);
    expect(new Set(notes).size).toBe(notes.length);
    expect(checkLine(run.stdout, 'one-token streamed completion')).toMatch(/^✓/);
  });

  it("with OPENAI_ACP_OLLAMA_NUM_CTX=0: /v1, and the server's own runtime window", async () => {
    const server = await startFakeOllama({});
    servers.push(server);
    const home = tempHome();
    const run = await runCli(['doctor'], {
      home,
      env: cleanEnv(home, { OPENAI_BASE_URL: server.baseUrl, OPENAI_PROVIDER: 'ollama', OPENAI_MODEL: 'qwen3:8b', OPENAI_ACP_OLLAMA_NUM_CTX: '0' }),
    });
    expect(run.stdout).toMatch(/chat URL\s+http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions \(OpenAI-compatible \/v1: OPENAI_ACP_OLLAMA_NUM_CTX=0\)/);
    expect(run.stdout).toMatch(/chat API\s+OpenAI-compatible \/v1: OPENAI_ACP_OLLAMA_NUM_CTX=0/);
    expect(checkLine(run.stdout, 'context window')).toContain('reported by the server');
    expect(run.stdout).toMatch(/runtime window\s+4,096 tokens/);
    expect(run.stdout).toMatch(/trained window\s+40,960 tokens/);
    expect(chats(server)).toHaveLength(0);
  });

  it('says when /api/chat is not served and /v1 is used', async () => {
    const server = await startFakeOllama({ chat: 'not-served' });
    servers.push(server);
    const home = tempHome();
    const run = await runCli(['doctor'], {
      home,
      env: cleanEnv(home, { OPENAI_BASE_URL: server.baseUrl, OPENAI_PROVIDER: 'ollama', OPENAI_MODEL: 'qwen3:8b' }),
    });
    expect(run.stdout).toMatch(/chat API\s+OpenAI-compatible \/v1: the native \/api\/chat is not served/);
  });
});
