/**
 * The agent's secrets stay with the agent, against the built CLI: a local `run_command` of `env`
 * (and, in the sandbox, of every process's `/proc/<pid>/environ`) gives the model no API key, no
 * secret-looking variable, and what the operator kept.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { fakeServerPool, type ChatHandler } from '../helpers/fake-openai.js';
import { script } from '../helpers/tool-script.js';
import { spawnAgent, type AgentProcess } from '../helpers/spawn-agent.js';
import { probeSandbox } from '../../src/tools/index.js';

const KEY = 'sk-canary-tool-env-0123456789';
const servers = fakeServerPool();
const dirs: string[] = [];
const agents: AgentProcess[] = [];
afterEach(() => {
  for (const agent of agents.splice(0)) agent.kill();
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs `command` through run_command (full-access mode, a client without a terminal) and returns the tool message the model got. */
async function toolOutput(command: string, env: Record<string, string>): Promise<string> {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'openai-acp-env-')));
  dirs.push(cwd);
  const handler: ChatHandler = script([{ calls: [['run_command', { command }]] }, { text: 'done' }]);
  const server = await servers(handler);
  const agent = spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_ACP_STATE_DIR: 'off', OPENAI_API_KEY: KEY, ...env });
  agents.push(agent);
  await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
  await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
  const answer = await agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'run it' }] });
  expect(answer.result.stopReason).toBe('end_turn');
  // The key did reach the endpoint: it is the agent's to use.
  expect(server.requests[0]!.headers['authorization']).toBe(`Bearer ${KEY}`);
  const tool = server.requests[1]!.body.messages.find((message: { role: string }) => message.role === 'tool');
  return String(tool.content);
}

describe('the environment of a local run_command', () => {
  it('has no API key and no secret-looking variable; the operator keeps one by name', async () => {
    const output = await toolOutput('env', { MY_SERVICE_TOKEN: 'tok-canary-1', GITHUB_TOKEN: 'ghp-canary-2', OPENAI_ACP_TOOL_ENV_KEEP: 'GITHUB_TOKEN' });
    expect(output).toMatch(/^PATH=/m);
    expect(output).not.toContain(KEY);
    expect(output).not.toContain('OPENAI_API_KEY');
    expect(output).not.toContain('tok-canary-1');
    expect(output).toContain('GITHUB_TOKEN=ghp-canary-2');
  });

  const found = probeSandbox();
  it.skipIf(!found.available)(
    `in the sandbox (OPENAI_ACP_SANDBOX=on) no process it can see holds the key, not even in /proc/<pid>/environ${found.available ? '' : ` (skipped here: ${found.available === false ? found.reason : ''})`}`,
    async () => {
      const output = await toolOutput("for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $f; done; echo; echo listed", { OPENAI_ACP_SANDBOX: 'on' });
      expect(output).toContain('listed');
      expect(output).toMatch(/^PATH=/m);
      expect(output).not.toContain(KEY);
    },
  );
});
