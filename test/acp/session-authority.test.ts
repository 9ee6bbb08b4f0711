/**
 * Authority per connection (`acp/session-authority.ts`): over several connections of one agent (as
 * `openai-acp serve` has them), a connection uses only the sessions it created, loaded, resumed or
 * forked; holders of one session see each other's turns and configuration changes; `session/list`
 * keeps to the root; `session/delete` waits for another connection's turn. In process, with the
 * SDK's client app and the loopback fake OpenAI server.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, type SessionNotification } from '@agentclientprotocol/sdk/unstable';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAIAgent, type OpenAIAgent } from '../../src/acp/agent.js';
import { createLogger } from '../../src/shared/log.js';
import { openSessionStore } from '../../src/sessions/session-store.js';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { testConfig } from '../helpers/in-process.js';
import { waitFor } from '../helpers/spawn-agent.js';

const quiet = createLogger({ level: 'error', write: () => undefined });
let server: FakeOpenAI;
const dirs: string[] = [];
const closers: (() => void)[] = [];
beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  for (const close of closers.splice(0)) close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const newDir = () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'openai-acp-authority-')));
  dirs.push(dir);
  return dir;
};
const text = (t: string) => [{ type: 'text' as const, text: t }];
const sse = (content: string) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n` +
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;

function agentWith(extra: { root?: string; stateDir?: string } = {}): OpenAIAgent {
  return createOpenAIAgent({
    config: testConfig({ OPENAI_BASE_URL: server.baseUrl }),
    logger: quiet,
    store: openSessionStore({ stateDir: extra.stateDir ?? newDir(), env: {}, logger: quiet }),
    root: extra.root,
  });
}

/** One network-like connection of `agent`: its updates and permission requests recorded, every permission allowed. */
async function connect(agent: OpenAIAgent) {
  const { app, release } = agent.connection();
  const updates: SessionNotification[] = [];
  const permissions: unknown[] = [];
  const connection = client()
    .onNotification('session/update', ({ params }) => {
      updates.push(params);
    })
    .onRequest('session/request_permission', ({ params }) => {
      permissions.push(params);
      return { outcome: { outcome: 'selected', optionId: params.options.find((o) => o.kind.startsWith('allow'))!.optionId } };
    })
    .connect(app);
  closers.push(() => connection.close());
  await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const kinds = (sessionId: string) => updates.filter((n) => n.sessionId === sessionId).map((n) => n.update.sessionUpdate);
  const said = (sessionId: string, kind: string) =>
    updates
      .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind)
      .map((n) => ('content' in n.update && n.update.content && 'text' in n.update.content ? n.update.content.text : ''))
      .join('');
  return { agent: connection.agent, updates, permissions, kinds, said, release, close: () => connection.close() };
}

/** A model that streams `first` and holds the rest of its answer until `release()`. */
function heldAnswer(first: string, rest: string) {
  let release: (() => void) | undefined;
  server.handle(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: first }, finish_reason: null }] })}\n\n`);
    await new Promise<void>((resolve) => (release = resolve));
    res.end(sse(rest));
  });
  return { started: () => release !== undefined, release: () => release?.() };
}

describe('a connection that does not hold a session', () => {
  it('gets -32002 {sessionId} for every method naming it, and the session is unchanged', async () => {
    const cwd = newDir();
    const agent = agentWith();
    const owner = await connect(agent);
    const stranger = await connect(agent);
    const { sessionId } = await owner.agent.request('session/new', { cwd, mcpServers: [] });
    const refused = { code: -32002, data: { sessionId } };
    const ask = stranger.agent.request.bind(stranger.agent) as (method: string, params: unknown) => Promise<unknown>;
    await expect(ask('session/set_mode', { sessionId, modeId: 'full-access' })).rejects.toMatchObject(refused);
    await expect(ask('session/set_config_option', { sessionId, configId: 'mode', value: 'full-access' })).rejects.toMatchObject(refused);
    await expect(ask('session/set_model', { sessionId, modelId: 'test-model' })).rejects.toMatchObject(refused);
    await expect(ask('session/fork', { sessionId, cwd, mcpServers: [] })).rejects.toMatchObject(refused);
    await expect(ask('session/prompt', { sessionId, prompt: text('hi') })).rejects.toMatchObject(refused);
    await expect(ask('session/cancel', { sessionId })).rejects.toMatchObject(refused);
    // -32002 to session/close reads as done to the SDK's clients (ACP: the same end state for the asker); the session stays.
    await ask('session/close', { sessionId });
    await expect(ask('session/delete', { sessionId })).rejects.toMatchObject({ code: -32600, data: { sessionId, reason: 'held' } });
    expect(await ask('_session/steering', { sessionId, prompt: text('psst') })).toMatchObject({ outcome: 'failed', reason: 'sessionNotFound' });
    // Nothing changed (the session still held and not closed), and the owner was told of nothing.
    const session = agent.sessions.get(sessionId)!;
    expect(session).toBeDefined();
    expect(session.options['mode']).toBeUndefined();
    expect(owner.kinds(sessionId)).not.toContain('config_option_update');
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sse('still mine'));
    });
    expect(await owner.agent.request('session/prompt', { sessionId, prompt: text('hi') })).toMatchObject({ stopReason: 'end_turn' });
    expect(stranger.kinds(sessionId)).toEqual([]);
  });
});

describe('two holders of one session', () => {
  it("see each other's prompts, turns and mode changes; either's cancel stops the turn", async () => {
    const cwd = newDir();
    const agent = agentWith();
    const first = await connect(agent);
    const second = await connect(agent);
    const { sessionId } = await first.agent.request('session/new', { cwd, mcpServers: [] });
    await second.agent.request('session/load', { sessionId, cwd, mcpServers: [] });

    // The second holder's mode change reaches the first.
    await second.agent.request('session/set_config_option', { sessionId, configId: 'mode', value: 'read-only' });
    await waitFor(() => first.kinds(sessionId).includes('current_mode_update'), 5_000, 'the mode change at the first holder');
    const modeUpdate = first.updates.find((n) => n.update.sessionUpdate === 'current_mode_update')!.update;
    expect(modeUpdate).toMatchObject({ currentModeId: 'read-only' });
    await first.agent.request('session/set_mode', { sessionId, modeId: 'ask' });
    await waitFor(() => second.kinds(sessionId).includes('current_mode_update'), 5_000, 'the mode change at the second holder');

    // The first holder's prompt and its answer reach the second.
    const answer = heldAnswer('Half ', 'and the rest.');
    const turn = first.agent.request('session/prompt', { sessionId, prompt: text('tell me a thing') }) as Promise<{ stopReason: string }>;
    await waitFor(answer.started, 5_000, 'the model request');
    await waitFor(() => second.said(sessionId, 'user_message_chunk').includes('tell me a thing'), 5_000, "the first holder's prompt at the second");
    answer.release();
    expect((await turn).stopReason).toBe('end_turn');
    await waitFor(() => second.said(sessionId, 'agent_message_chunk').endsWith('Half and the rest.'), 5_000, 'the answer at the second holder');
    expect(first.said(sessionId, 'user_message_chunk')).toBe('');

    // The second holder's cancel ends the first holder's turn with `cancelled`.
    const hanging = heldAnswer('Thinking', '');
    const cancelled = first.agent.request('session/prompt', { sessionId, prompt: text('again') }) as Promise<{ stopReason: string }>;
    await waitFor(hanging.started, 5_000, 'the second model request');
    await second.agent.request('session/cancel', { sessionId });
    expect((await cancelled).stopReason).toBe('cancelled');
    hanging.release();
  });

  it("refuses to delete the session while the other holder's turn runs, and deletes it for its own turn", async () => {
    const cwd = newDir();
    const agent = agentWith();
    const first = await connect(agent);
    const second = await connect(agent);
    const { sessionId } = await first.agent.request('session/new', { cwd, mcpServers: [] });
    await second.agent.request('session/resume', { sessionId, cwd, mcpServers: [] });
    const answer = heldAnswer('Working', ' done.');
    const turn = first.agent.request('session/prompt', { sessionId, prompt: text('work') }) as Promise<{ stopReason: string }>;
    await waitFor(answer.started, 5_000, 'the model request');
    await expect(second.agent.request('session/delete', { sessionId })).rejects.toMatchObject({ code: -32600, data: { sessionId, reason: 'running' } });
    answer.release();
    expect((await turn).stopReason).toBe('end_turn');
    await second.agent.request('session/delete', { sessionId });
    expect(agent.sessions.get(sessionId)).toBeUndefined();
    await expect(first.agent.request('session/prompt', { sessionId, prompt: text('gone?') })).rejects.toMatchObject({ code: -32002 });
  });
});

describe('session/list on a server with a root', () => {
  it('shows only the sessions whose cwd is inside the root; delete of one outside does nothing', async () => {
    const stateDir = newDir();
    const root = newDir();
    const outside = newDir();
    mkdirSync(join(root, 'project'));
    const everywhere = await connect(agentWith({ stateDir }));
    // Instructions of their own keep the sessions after their connection goes (a blank one is removed).
    const kept = { 'openai-acp': { instructions: 'Be brief.' } };
    const { sessionId: away } = await everywhere.agent.request('session/new', { cwd: outside, mcpServers: [], _meta: kept });
    const { sessionId: home } = await everywhere.agent.request('session/new', { cwd: join(root, 'project'), mcpServers: [], _meta: kept });
    everywhere.close();
    await everywhere.release();
    const rooted = await connect(agentWith({ stateDir, root }));
    const { sessions } = (await rooted.agent.request('session/list', {})) as { sessions: { sessionId: string }[] };
    expect(sessions.map((s) => s.sessionId)).toEqual([home]);
    await rooted.agent.request('session/delete', { sessionId: away });
    const unrooted = await connect(agentWith({ stateDir }));
    const all = (await unrooted.agent.request('session/list', {})) as { sessions: { sessionId: string }[] };
    expect(all.sessions.map((s) => s.sessionId).sort()).toEqual([away, home].sort());
  });
});
