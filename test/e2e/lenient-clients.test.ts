/** Clients that bend the spec where it is silent, against the built agent: served, with a debug line, not refused. */
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { spawnAgent, waitFor, type AgentProcess } from '../helpers/spawn-agent.js';

let server: FakeOpenAI | undefined;
let agent: AgentProcess | undefined;
afterEach(async () => {
  agent?.kill();
  await agent?.exited;
  await server?.close();
});

describe('a malformed optional field', () => {
  it("agentgui's string systemPrompt at the root of session/new: the session is made and the prompt answered", async () => {
    server = await startFakeOpenAI();
    agent = spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_ACP_LOG: 'debug' });
    await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    agent.writeLine(
      JSON.stringify({ jsonrpc: '2.0', id: 'new', method: 'session/new', params: { cwd: process.cwd(), mcpServers: [], systemPrompt: 'Be brief.' } }),
    );
    await waitFor(() => agent!.messages.some((m) => m.id === 'new'), 10_000, 'the answer to session/new');
    const answer = agent.messages.find((m) => m.id === 'new');
    expect(answer.error).toBeUndefined();
    const sessionId = answer.result.sessionId as string;
    const prompted = await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(prompted.result.stopReason).toBe('end_turn');
    expect(agent.stderr()).toMatch(/ignored a malformed optional field.*systemPrompt/);
  });
});
