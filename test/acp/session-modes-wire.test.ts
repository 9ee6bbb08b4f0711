/**
 * Session modes through the real agent wiring (in process, real file store in a temp dir): the
 * mode offered in both ACP shapes, set either way, saved, and back after `session/load`.
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
let dir: string | undefined;
const open: InProcess[] = [];

beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  for (const conn of open.splice(0)) conn.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function agentOn(stateDir: string): Promise<InProcess> {
  const conn = await connectInProcess({ OPENAI_BASE_URL: server.baseUrl }, { store: openSessionStore({ stateDir, env: {}, logger: quiet }) });
  open.push(conn);
  return conn;
}
const modeOption = (options: unknown) => (options as { id: string; currentValue: string }[] | undefined)?.find((o) => o.id === 'mode');

describe('session modes over ACP', () => {
  it('a new session offers the mode select and legacy modes, both at ask', async () => {
    dir = mkdtempSync(join(tmpdir(), 'openai-acp-modes-'));
    const conn = await agentOn(dir);
    const answer = await conn.agent.request('session/new', { cwd: dir, mcpServers: [] });
    expect(answer.modes?.currentModeId).toBe('ask');
    expect(answer.modes?.availableModes.map((m) => m.id)).toEqual(['ask', 'accept-edits', 'plan', 'read-only', 'full-access']);
    expect(modeOption(answer.configOptions)).toMatchObject({ currentValue: 'ask', category: 'mode' });
  });

  it('set_mode and set_config_option change the mode, which survives session/load in a new agent', async () => {
    dir = mkdtempSync(join(tmpdir(), 'openai-acp-modes-'));
    const first = await agentOn(dir);
    const { sessionId } = await first.agent.request('session/new', { cwd: dir, mcpServers: [] });
    await first.agent.request('session/set_mode', { sessionId, modeId: 'read-only' });
    const second = await agentOn(dir);
    const loaded = await second.agent.request('session/load', { sessionId, cwd: dir, mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe('read-only');
    expect(modeOption(loaded.configOptions)?.currentValue).toBe('read-only');

    const set = await second.agent.request('session/set_config_option', { sessionId, configId: 'mode', value: 'full-access' });
    expect(modeOption(set.configOptions)?.currentValue).toBe('full-access');
    const third = await agentOn(dir);
    const again = await third.agent.request('session/load', { sessionId, cwd: dir, mcpServers: [] });
    expect(again.modes?.currentModeId).toBe('full-access');
  });

  it('an unknown mode is refused with -32602 either way', async () => {
    dir = mkdtempSync(join(tmpdir(), 'openai-acp-modes-'));
    const conn = await agentOn(dir);
    const { sessionId } = await conn.agent.request('session/new', { cwd: dir, mcpServers: [] });
    await expect(conn.agent.request('session/set_mode', { sessionId, modeId: 'yolo' })).rejects.toMatchObject({ code: -32602 });
    await expect(conn.agent.request('session/set_config_option', { sessionId, configId: 'mode', value: 'yolo' })).rejects.toMatchObject({ code: -32602 });
  });
});
