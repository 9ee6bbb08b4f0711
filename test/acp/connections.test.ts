/**
 * Several ACP connections to one agent (`openai-acp serve` gives each network connection its own):
 * each client's capabilities are its own, sessions are the agent's, a connection holds at most
 * its share of them, and a closed connection lets go of what only it held. In process, with the
 * SDK's client app and the loopback fake OpenAI server.
 */
import { mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, type ClientCapabilities, type SessionNotification } from '@agentclientprotocol/sdk/unstable';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAIAgent, type OpenAIAgent } from '../../src/acp/agent.js';
import { createLogger } from '../../src/shared/log.js';
import { openSessionStore } from '../../src/sessions/session-store.js';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { testConfig } from '../helpers/in-process.js';
import { script } from '../helpers/tool-script.js';

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
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'openai-acp-conns-')));
  dirs.push(dir);
  return dir;
};
const text = (t: string) => [{ type: 'text' as const, text: t }];

function agentWith(extra: { root?: string; stateDir?: string } = {}): OpenAIAgent {
  return createOpenAIAgent({
    config: testConfig({ OPENAI_BASE_URL: server.baseUrl }),
    logger: quiet,
    store: openSessionStore({ stateDir: extra.stateDir ?? 'off', env: {}, logger: quiet }),
    root: extra.root,
  });
}

/** One client connection: answers fs/read_text_file with `read` when given, and every permission with allow. */
async function connect(agent: OpenAIAgent, capabilities: ClientCapabilities, options: { maxSessions?: number; read?: string } = {}) {
  const { app, release } = agent.connection({ maxSessions: options.maxSessions });
  const updates: SessionNotification[] = [];
  const reads: string[] = [];
  const connection = client()
    .onNotification('session/update', ({ params }) => {
      updates.push(params);
    })
    .onRequest('fs/read_text_file', ({ params }) => {
      reads.push(params.path);
      return { content: options.read ?? '' };
    })
    .onRequest('session/request_permission', ({ params }) => ({
      outcome: { outcome: 'selected', optionId: params.options.find((o) => o.kind.startsWith('allow'))!.optionId },
    }))
    .connect(app);
  closers.push(() => connection.close());
  await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: capabilities });
  const toolText = () =>
    updates
      .flatMap((n) => (n.update.sessionUpdate === 'tool_call_update' ? (n.update.content ?? []) : []))
      .map((c) => (c.type === 'content' && c.content.type === 'text' ? c.content.text : ''))
      .join('');
  return { agent: connection.agent, reads, updates, toolText, close: () => connection.close(), release };
}

describe('capabilities per connection', () => {
  it('reads through the client that advertised fs, and from disk for the one that did not, in the same agent', async () => {
    const cwd = newDir();
    writeFileSync(join(cwd, 'notes.txt'), 'on the disk\n');
    const agent = agentWith();
    const editor = await connect(agent, { fs: { readTextFile: true } }, { read: 'in the editor buffer' });
    const plain = await connect(agent, {});
    for (const conn of [editor, plain]) {
      server.handle(script([{ calls: [['read_file', { path: 'notes.txt' }]] }, { text: 'done' }]));
      const { sessionId } = await conn.agent.request('session/new', { cwd, mcpServers: [] });
      const answer: { stopReason: string } = await conn.agent.request('session/prompt', { sessionId, prompt: text('read it') });
      expect(answer.stopReason).toBe('end_turn');
    }
    expect(editor.reads).toEqual([join(cwd, 'notes.txt')]);
    expect(editor.toolText()).toContain('in the editor buffer');
    expect(plain.reads).toEqual([]);
    expect(plain.toolText()).toContain('on the disk');
    // Each turn's updates went to the connection that asked, and only there.
    const ids = (conn: typeof editor) => new Set(conn.updates.map((n) => n.sessionId));
    expect([...ids(editor)].some((id) => ids(plain).has(id))).toBe(false);
  });
});

describe('sessions per connection', () => {
  it('refuses a session past the limit, lets the same one be loaded again, and counts a closed one out', async () => {
    const cwd = newDir();
    const agent = agentWith({ stateDir: newDir() });
    const conn = await connect(agent, {}, { maxSessions: 1 });
    const { sessionId } = await conn.agent.request('session/new', { cwd, mcpServers: [] });
    await expect(conn.agent.request('session/new', { cwd, mcpServers: [] })).rejects.toMatchObject({
      code: -32600,
      message: expect.stringContaining('close one (session/close) first'),
    });
    // The session it holds may be resumed again; another connection is not limited by this one.
    await conn.agent.request('session/resume', { sessionId, cwd, mcpServers: [] });
    const other = await connect(agent, {}, { maxSessions: 1 });
    await other.agent.request('session/new', { cwd, mcpServers: [] });
    await conn.agent.request('session/close', { sessionId });
    await conn.agent.request('session/new', { cwd, mcpServers: [] });
  });

  it("keeps a session another connection holds on close, and lets go of it when the last holder's connection ends", async () => {
    const cwd = newDir();
    const agent = agentWith({ stateDir: newDir() });
    const first = await connect(agent, {});
    const second = await connect(agent, {});
    const { sessionId } = await first.agent.request('session/new', { cwd, mcpServers: [] });
    await second.agent.request('session/resume', { sessionId, cwd, mcpServers: [] });
    await first.agent.request('session/close', { sessionId });
    expect(agent.sessions.get(sessionId)).toBeDefined();
    second.close();
    await second.release();
    expect(agent.sessions.get(sessionId)).toBeUndefined();
  });
});

describe('sessions of another connection', () => {
  it('cannot be prompted or cancelled from a connection that did not open them', async () => {
    const cwd = newDir();
    const agent = agentWith({ stateDir: newDir() });
    const owner = await connect(agent, {});
    const stranger = await connect(agent, {});
    const { sessionId } = await owner.agent.request('session/new', { cwd, mcpServers: [] });
    await expect(stranger.agent.request('session/prompt', { sessionId, prompt: text('hi') })).rejects.toMatchObject({ code: -32002 });
    let release!: () => void;
    server.handle(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      await new Promise<void>((resolve) => (release = resolve));
      res.end(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'done' }, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`);
    });
    const turn = owner.agent.request('session/prompt', { sessionId, prompt: text('go') }) as Promise<{ stopReason: string }>;
    for (let i = 0; i < 200 && !release; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    // A cancel sent as a request is refused as for an unknown session; the owner's turn runs on.
    await expect(stranger.agent.request('session/cancel', { sessionId })).rejects.toMatchObject({ code: -32002, data: { sessionId } });
    release();
    expect((await turn).stopReason).toBe('end_turn');
  });
});

describe('the workspace root', () => {
  it('refuses a cwd, an additional directory or a saved session outside the root, and a symlink that leads out', async () => {
    const root = newDir();
    const outside = newDir();
    symlinkSync(outside, join(root, 'escape'));
    const stateDir = newDir();
    const agent = agentWith({ root, stateDir });
    const conn = await connect(agent, {});
    const { sessionId } = await conn.agent.request('session/new', { cwd: join(root, 'project'), mcpServers: [] });
    expect(sessionId).toEqual(expect.any(String));
    for (const params of [{ cwd: outside }, { cwd: join(root, 'escape') }, { cwd: join(root, '..') }, { cwd: root, additionalDirectories: [outside] }]) {
      await expect(conn.agent.request('session/new', { ...params, mcpServers: [] })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining(`is outside this server's workspace root ${root}`),
      });
    }
    // A session saved by a server with another root is not taken up here.
    const elsewhere = await connect(agentWith({ stateDir }), {});
    const foreign = (await elsewhere.agent.request('session/new', { cwd: outside, mcpServers: [] })).sessionId;
    await expect(conn.agent.request('session/load', { sessionId: foreign, cwd: root, mcpServers: [] })).rejects.toMatchObject({ code: -32602 });
  });
});

describe("the server's endpoints", () => {
  it('are not changed by one connection for the others: providers/set and providers/disable are refused and not advertised', async () => {
    const cwd = newDir();
    const agent = agentWith({ stateDir: newDir() });
    const owner = await connect(agent, {});
    const stranger = await connect(agent, {});
    const { sessionId } = await owner.agent.request('session/new', { cwd, mcpServers: [] });
    const { agentCapabilities } = await stranger.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    expect(agentCapabilities?.providers).toBeUndefined();
    await expect(
      stranger.agent.request('providers/set', {
        providerId: 'mine',
        apiType: 'openai',
        baseUrl: 'http://127.0.0.1:9/v1',
        headers: { Authorization: 'Bearer x' },
      }),
    ).rejects.toMatchObject({ code: -32601, message: expect.stringContaining('openai-acp serve') });
    await expect(stranger.agent.request('providers/disable', { providerId: 'default' })).rejects.toMatchObject({ code: -32601 });
    // The owner's session still goes to the server's endpoint, and the stranger heard nothing of it.
    server.handle(script([{ text: 'still here' }]));
    const answer: { stopReason: string } = await owner.agent.request('session/prompt', { sessionId, prompt: text('hi') });
    expect(answer.stopReason).toBe('end_turn');
    expect(stranger.updates.filter((n) => n.sessionId === sessionId)).toEqual([]);
  });
});
