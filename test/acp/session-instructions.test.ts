/**
 * A client's own instructions for a session (`_meta["openai-acp"].instructions` on `session/new`):
 * sent after the agent's system prompt on every request, kept with the session through a restart,
 * and checked. The AgentConnect front door passes an app's `system` this way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/shared/log.js';
import { openSessionStore } from '../../src/sessions/session-store.js';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { connectInProcess, type InProcess } from '../helpers/in-process.js';

const quiet = createLogger({ level: 'error', write: () => undefined });
let server: FakeOpenAI;
const dirs: string[] = [];
const open: InProcess[] = [];
beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(async () => {
  await server.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  for (const conn of open.splice(0)) conn.close();
});

async function agentOn(stateDir: string): Promise<InProcess> {
  const conn = await connectInProcess({ OPENAI_BASE_URL: server.baseUrl }, { store: openSessionStore({ stateDir, env: {}, logger: quiet }) });
  open.push(conn);
  return conn;
}
const prompt = [{ type: 'text' as const, text: 'hi' }];

describe('session instructions from the client', () => {
  it('come after the agent system prompt on every request, and survive a restart', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'openai-acp-instr-'));
    dirs.push(stateDir);
    const first = await agentOn(stateDir);
    const { sessionId } = await first.agent.request('session/new', {
      cwd: process.cwd(),
      mcpServers: [],
      _meta: { 'openai-acp': { instructions: 'Always answer in French.' } },
    });
    await first.agent.request('session/prompt', { sessionId, prompt });
    const system = server.requests.at(-1)!.body.messages[0];
    expect(system.role).toBe('system');
    expect(system.content).toMatch(/read_file[\s\S]*\n\nAlways answer in French\.$/);

    const second = await agentOn(stateDir);
    await second.agent.request('session/resume', { sessionId, cwd: process.cwd(), mcpServers: [] });
    await second.agent.request('session/prompt', { sessionId, prompt });
    expect(server.requests.at(-1)!.body.messages[0].content).toMatch(/Always answer in French\.$/);
  });

  it('are absent without _meta, and refused when not a string', async () => {
    const conn = await agentOn('off');
    const sessionId = await conn.newSession();
    await conn.agent.request('session/prompt', { sessionId, prompt });
    expect(server.requests.at(-1)!.body.messages[0].content).not.toContain('French');
    await expect(
      conn.agent.request('session/new', { cwd: process.cwd(), mcpServers: [], _meta: { 'openai-acp': { instructions: 42 } } }),
    ).rejects.toMatchObject({ code: -32602 });
  });
});
