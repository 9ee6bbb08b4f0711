/**
 * `openai-acp serve` end to end: the built CLI serves ACP's Streamable HTTP & WebSocket transport
 * on a loopback port, and the SDK's own clients (`experimental/ws-client`, `experimental/http-client`)
 * drive it as remote editors would, against the loopback fake OpenAI server: a prompt with a tool
 * call and its permission, cancel, a client gone mid-turn, load after a restart, resume on a
 * second process after the first was killed with SIGKILL, and the workspace root.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chunk, fakeServerPool, type ChatHandler } from '../helpers/fake-openai.js';
import { serveFixtures, until, type RemoteClient, type ServeProcess, type Transport } from '../helpers/serve-client.js';
import { script } from '../helpers/tool-script.js';

const TOKEN = 'e2e-serve-token-0123';
const servers = fakeServerPool();
const fixtures = serveFixtures();
const scratch = () => fixtures.scratch();

async function serve(home: string, root: string, baseUrl: string, args: string[] = [], env: Record<string, string> = {}): Promise<ServeProcess> {
  return fixtures.start(home, { OPENAI_BASE_URL: baseUrl, OPENAI_MODEL: 'test-model', OPENAI_MAX_RETRIES: '0', ...env }, [
    '--token',
    TOKEN,
    '--root',
    root,
    ...args,
  ]);
}

/**
 * One serve process (and its model server) for the cases that need no settings of their own and
 * neither stop nor restart it: each case connects its own clients, works in a fresh folder inside
 * the root, and sets the model server's handler (its recorded requests start afresh). A process
 * start costs ~0.3 s of CPU; every behaviour here is still shown by a real spawn.
 */
const sharedServe = fixtures.sharedForFile(['--token', TOKEN], { OPENAI_MAX_RETRIES: '0' });

async function remote(url: string, transport: Transport): Promise<RemoteClient> {
  return fixtures.connect(url, transport, { token: TOKEN });
}

const text = (t: string) => [{ type: 'text' as const, text: t }];

/** A model that streams `first`, then holds the answer open until the request is aborted (recorded in `aborted`). */
function hanging(first: string): ChatHandler & { aborted: () => number } {
  let aborted = 0;
  const handler: ChatHandler = (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ content: first }));
    req.socket.once('close', () => aborted++);
  };
  return Object.assign(handler, { aborted: () => aborted });
}

describe.each(['ws', 'http'] as const)('openai-acp serve over %s', (transport) => {
  it('runs a prompt whose tool call asks permission, writes inside the root, and streams the answer', async () => {
    const { cwd, url } = await sharedServe(script([{ calls: [['write_file', { path: 'hello.txt', content: 'hi from the model\n' }]] }, { text: 'Wrote it.' }]));
    const agent = await remote(url, transport);
    const { sessionId } = await agent.agent.request('session/new', { cwd, mcpServers: [] });
    const answer: { stopReason: string } = await agent.agent.request('session/prompt', { sessionId, prompt: text('write hello.txt') });
    expect(answer.stopReason).toBe('end_turn');
    expect(agent.permissions).toHaveLength(1);
    expect(agent.permissions[0].toolCall.title).toContain('hello.txt');
    expect(readFileSync(join(cwd, 'hello.txt'), 'utf8')).toBe('hi from the model\n');
    expect(agent.text(sessionId)).toBe('Wrote it.');
    const kinds = agent.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update.sessionUpdate);
    expect(kinds).toEqual(expect.arrayContaining(['tool_call', 'tool_call_update', 'agent_message_chunk']));
  });

  it('cancels a running turn with session/cancel; the turn answers cancelled and the model request is dropped', async () => {
    const model = hanging('Thinking about');
    const { cwd, url } = await sharedServe(model);
    const agent = await remote(url, transport);
    const { sessionId } = await agent.agent.request('session/new', { cwd, mcpServers: [] });
    const answer = agent.agent.request('session/prompt', { sessionId, prompt: text('go on') }) as Promise<{ stopReason: string }>;
    await until(() => agent.text(sessionId).length > 0, 10_000, 'the first chunk');
    await agent.agent.notify('session/cancel', { sessionId });
    expect((await answer).stopReason).toBe('cancelled');
    await until(() => model.aborted() === 1, 5_000, 'the model request to close');
  });

  it('cancels the turn of a client that goes away mid-turn and keeps what it said in the saved session', async () => {
    const model = hanging('Half an answer');
    const { cwd, url } = await sharedServe(model);
    const leaving = await remote(url, transport);
    const { sessionId } = await leaving.agent.request('session/new', { cwd, mcpServers: [] });
    void leaving.agent.request('session/prompt', { sessionId, prompt: text('tell me a story') }).catch(() => undefined);
    await until(() => leaving.text(sessionId).length > 0, 10_000, 'the first chunk');
    leaving.close();
    // WebSocket: at once; Streamable HTTP: the DELETE the client sends as it closes.
    await until(() => model.aborted() === 1, 10_000, 'the model request to close');
    const back = await remote(url, transport);
    await back.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    const replayed = back.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
    expect(replayed.find((u) => u.sessionUpdate === 'user_message_chunk')).toMatchObject({ content: { text: 'tell me a story' } });
    expect(back.text(sessionId)).toContain('Half an answer');
  });

  it('loads a session after a restart with its history replayed, and resumes it on a second process after the first was killed with SIGKILL', async () => {
    const { home, root } = scratch();
    const model = await servers(script([{ text: 'The first answer.' }]));
    const first = await serve(home, root, model.baseUrl);
    const agent = await remote(first.url, transport);
    const { sessionId } = await agent.agent.request('session/new', { cwd: root, mcpServers: [] });
    await agent.agent.request('session/prompt', { sessionId, prompt: text('first question') });
    agent.close();
    await first.stop();

    // A restart: the history comes back as session/update replay.
    const second = await serve(home, root, model.baseUrl);
    const loaded = await remote(second.url, transport);
    await loaded.agent.request('session/load', { sessionId, cwd: root, mcpServers: [] });
    expect(loaded.text(sessionId)).toBe('The first answer.');
    model.handle(script([{ text: 'The second answer.' }]));
    await loaded.agent.request('session/prompt', { sessionId, prompt: text('second question') });

    // The process holding the session dies without a word; a third one on the same state directory takes over.
    second.child.kill('SIGKILL');
    await second.exited;
    const third = await serve(home, root, model.baseUrl);
    const resumed = await remote(third.url, transport);
    await resumed.agent.request('session/resume', { sessionId, cwd: root, mcpServers: [] });
    model.handle(script([{ text: 'The third answer.' }]));
    const answer: { stopReason: string } = await resumed.agent.request('session/prompt', { sessionId, prompt: text('third question') });
    expect(answer.stopReason).toBe('end_turn');
    const sent = model.requests.at(-1)!.body.messages.map((m: { role: string; content: string }) => `${m.role}: ${m.content}`);
    expect(sent.slice(-5)).toEqual([
      'user: first question',
      'assistant: The first answer.',
      'user: second question',
      'assistant: The second answer.',
      'user: third question',
    ]);
    const listed: { sessions: { sessionId: string }[] } = await resumed.agent.request('session/list', {});
    expect(listed.sessions.map((s) => s.sessionId)).toEqual([sessionId]);
  });
});

describe('openai-acp serve: the workspace root', () => {
  it("refuses a cwd outside --root; a client without fs has its tools read the server's workspace", async () => {
    const { home, root, cwd, url } = await sharedServe(script([{ calls: [['read_file', { path: 'notes.txt' }]] }, { text: 'Read.' }]));
    writeFileSync(join(cwd, 'notes.txt'), 'the server copy\n');
    const agent = await remote(url, 'ws');
    await expect(agent.agent.request('session/new', { cwd: home, mcpServers: [] })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining(`outside this server's workspace root ${root}`),
    });
    const { sessionId } = await agent.agent.request('session/new', { cwd, mcpServers: [] });
    await agent.agent.request('session/prompt', { sessionId, prompt: text('read notes.txt') });
    const shown = JSON.stringify(agent.updates.filter((n) => n.update.sessionUpdate === 'tool_call_update'));
    expect(shown).toContain('the server copy');
  });
});
