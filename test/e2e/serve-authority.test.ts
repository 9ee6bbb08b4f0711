/**
 * Authority per connection over `openai-acp serve`, end to end: two SDK clients on one served
 * agent. A connection cannot change, prompt, cancel, fork, close or delete a session it has not
 * created or loaded; once it loads it, both holders see each other's prompts, answers and mode
 * changes, a holder that loads mid-turn leaves the prompting one its answer, permission goes to the
 * prompting holder, and delete waits for the other's turn; `session/list` keeps to `--root`.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chunk, fakeServerPool, startFakeOpenAI, type ChatHandler, type FakeOpenAI } from '../helpers/fake-openai.js';
import { serveFixtures, startServe, until, type RemoteClient, type ServeProcess, type Transport } from '../helpers/serve-client.js';
import { script } from '../helpers/tool-script.js';

const TOKEN = 'e2e-authority-token-0123';
const servers = fakeServerPool();
const fixtures = serveFixtures();
const text = (t: string) => [{ type: 'text' as const, text: t }];

/** A model whose answers the test sets one at a time (`next`); `held(first, rest)` streams `first` and waits for `release()`. */
function switchboard() {
  let current: ChatHandler = script([{ text: 'ok' }]);
  let release: (() => void) | undefined;
  const handler: ChatHandler = (req, res, body) => current(req, res, body);
  return {
    handler,
    next(next: ChatHandler) {
      current = next;
    },
    held(first: string, rest: string) {
      release = undefined;
      current = async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk({ content: first }));
        await new Promise<void>((resolve) => (release = resolve));
        res.write(chunk({ content: rest }));
        res.end(`${chunk({}, 'stop')}data: [DONE]\n\n`);
      };
    },
    started: () => release !== undefined,
    release: () => release?.(),
  };
}

/**
 * One serve process and its switchboard model for the authority cases (same settings): each case
 * connects its own two clients and works in a fresh folder inside the root. A process start costs
 * ~0.3 s of CPU; every behaviour here is still shown by a real spawn.
 */
let shared: { model: ReturnType<typeof switchboard>; fake: FakeOpenAI; served: ServeProcess; root: string } | undefined;
afterAll(async () => {
  await shared?.served.stop();
  await shared?.fake.close();
});

async function sharedTwo(transport: Transport) {
  if (shared === undefined) {
    const model = switchboard();
    const fake = await startFakeOpenAI(model.handler);
    const { home, root } = fixtures.scratch();
    const served = await startServe(home, { OPENAI_BASE_URL: fake.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_MAX_RETRIES: '0' }, [
      '--token',
      TOKEN,
      '--root',
      root,
    ]);
    shared = { model, fake, served, root };
  }
  shared.model.next(script([{ text: 'ok' }]));
  const one = await fixtures.connect(shared.served.url, transport, { token: TOKEN });
  const two = await fixtures.connect(shared.served.url, transport, { token: TOKEN });
  return { model: shared.model, root: mkdtempSync(join(shared.root, 'case-')), one, two };
}

const kinds = (client: RemoteClient, sessionId: string) => client.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update.sessionUpdate);
const userText = (client: RemoteClient, sessionId: string) =>
  client.updates
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'user_message_chunk')
    .map((n) => (n.update as { content: { text?: string } }).content.text ?? '')
    .join('');

describe.each(['ws', 'http'] as const)('authority per connection over serve (%s)', (transport) => {
  it("refuses every method on another connection's session, which stays as it was", async () => {
    const { model, root, one, two } = await sharedTwo(transport);
    const { sessionId } = await one.agent.request('session/new', { cwd: root, mcpServers: [] });
    const ask = two.agent.request.bind(two.agent) as (method: string, params: unknown) => Promise<unknown>;
    const notFound = { code: -32002, data: { sessionId } };
    await expect(ask('session/set_mode', { sessionId, modeId: 'full-access' })).rejects.toMatchObject(notFound);
    await expect(ask('session/set_config_option', { sessionId, configId: 'mode', value: 'full-access' })).rejects.toMatchObject(notFound);
    await expect(ask('session/set_model', { sessionId, modelId: 'test-model' })).rejects.toMatchObject(notFound);
    await expect(ask('session/fork', { sessionId, cwd: root, mcpServers: [] })).rejects.toMatchObject(notFound);
    await expect(ask('session/prompt', { sessionId, prompt: text('hi') })).rejects.toMatchObject(notFound);
    await expect(ask('session/cancel', { sessionId })).rejects.toMatchObject(notFound);
    await expect(ask('session/delete', { sessionId })).rejects.toMatchObject({ code: -32600, data: { sessionId, reason: 'held' } });
    await ask('session/close', { sessionId });
    expect(await ask('_session/steering', { sessionId, prompt: text('psst') })).toMatchObject({ outcome: 'failed', reason: 'sessionNotFound' });
    // Still the owner's, in its mode: the write asks permission, and the owner was told of no change.
    model.next(script([{ calls: [['write_file', { path: 'a.txt', content: 'a\n' }]] }, { text: 'Wrote it.' }]));
    expect(await one.agent.request('session/prompt', { sessionId, prompt: text('write a.txt') })).toMatchObject({ stopReason: 'end_turn' });
    expect(one.permissions).toHaveLength(1);
    expect(kinds(one, sessionId)).not.toContain('current_mode_update');
    expect(kinds(two, sessionId)).toEqual([]);
  });

  it("after a load mid-turn, both holders see each other's prompts, answers and mode changes; delete waits for the other's turn", async () => {
    const { model, root, one, two } = await sharedTwo(transport);
    const { sessionId } = await one.agent.request('session/new', { cwd: root, mcpServers: [] });
    model.held('First half', ', second half.');
    const first = one.agent.request('session/prompt', { sessionId, prompt: text('tell me') }) as Promise<{ stopReason: string }>;
    await until(() => one.text(sessionId) === 'First half', 20_000, 'the first chunk');
    // The second connection takes the session up while the first one's turn runs.
    await two.agent.request('session/load', { sessionId, cwd: root, mcpServers: [] });
    await expect(two.agent.request('session/delete', { sessionId })).rejects.toMatchObject({ code: -32600, data: { sessionId, reason: 'running' } });
    model.release();
    expect((await first).stopReason).toBe('end_turn');
    expect(one.text(sessionId)).toBe('First half, second half.');
    await until(() => two.text(sessionId).endsWith(', second half.'), 20_000, 'the rest of the answer at the second holder');

    // A mode change by the second reaches the first.
    await two.agent.request('session/set_config_option', { sessionId, configId: 'mode', value: 'ask' });
    await until(() => kinds(one, sessionId).includes('current_mode_update'), 20_000, 'the mode change at the first holder');

    // The second's prompt reaches the first as a user message and a tool call; its permission request goes to the second only.
    model.next(script([{ calls: [['write_file', { path: 'b.txt', content: 'b\n' }]] }, { text: 'Wrote b.' }]));
    expect(await two.agent.request('session/prompt', { sessionId, prompt: text('write b.txt') })).toMatchObject({ stopReason: 'end_turn' });
    expect(two.permissions).toHaveLength(1);
    expect(one.permissions).toHaveLength(0);
    await until(() => userText(one, sessionId).includes('write b.txt'), 20_000, "the second holder's prompt at the first");
    await until(() => kinds(one, sessionId).includes('tool_call') && one.text(sessionId).endsWith('Wrote b.'), 20_000, 'the turn at the first holder');

    // With no turn running, a holder may delete it; the other one then finds it gone.
    await two.agent.request('session/delete', { sessionId });
    await expect(one.agent.request('session/prompt', { sessionId, prompt: text('still there?') })).rejects.toMatchObject({ code: -32002 });
  });
});

describe('session/list over serve', () => {
  it('lists only the sessions inside --root', async () => {
    const model = await servers(script([{ text: 'ok' }]));
    const { home, root } = fixtures.scratch();
    const env = { OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_MAX_RETRIES: '0' };
    const other = join(home, 'other');
    mkdirSync(other);
    // First a server over the whole home, with a session in each folder.
    const wide = await fixtures.start(home, env, ['--token', TOKEN, '--root', home]);
    const client = await fixtures.connect(wide.url, 'ws', { token: TOKEN });
    // Each with instructions, so they are kept when the client leaves (a blank session is not).
    const kept = { _meta: { 'openai-acp': { instructions: 'Answer briefly.' } } };
    const { sessionId: inside } = await client.agent.request('session/new', { cwd: root, mcpServers: [], ...kept });
    const { sessionId: outside } = await client.agent.request('session/new', { cwd: other, mcpServers: [], ...kept });
    client.close();
    await wide.stop();
    const narrow = await fixtures.start(home, env, ['--token', TOKEN, '--root', root]);
    const remote = await fixtures.connect(narrow.url, 'ws', { token: TOKEN });
    const { sessions } = (await remote.agent.request('session/list', {})) as { sessions: { sessionId: string }[] };
    expect(sessions.map((s) => s.sessionId)).toEqual([inside]);
    expect(outside).not.toBe(inside);
  });
});
