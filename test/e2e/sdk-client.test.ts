/**
 * End to end with the ACP SDK's own client app: the built CLI spawned, the SDK client connected
 * to its stdio through `ndJsonStream`, against a loopback OpenAI-compatible server.
 */
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { client, ndJsonStream, type SessionNotification } from '@agentclientprotocol/sdk/unstable';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chunk, startFakeOpenAI, streamText, type FakeOpenAI } from '../helpers/fake-openai.js';
import { CLI, waitFor } from '../helpers/spawn-agent.js';
import { cleanEnv, tempHome } from '../helpers/temp-home.js';

let server: FakeOpenAI;
beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(() => server.close());

it('streams, keeps history, cancels and exits 0 when the SDK client closes stdin', async () => {
  const child = spawn(process.execPath, [CLI], {
    env: cleanEnv(tempHome(), { OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_CONTEXT_WINDOW: '8192', OPENAI_ACP_TOOLS: 'off' }),
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const notifications: SessionNotification[] = [];
  const connection = client()
    .onNotification('session/update', ({ params }) => {
      notifications.push(params);
    })
    .connect(ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>));
  const agent = connection.agent;
  // The model's text only (messageIds `<turnId>-<step>-m`): the small-window notice is a message of its own.
  const textOf = (sessionId: string) =>
    notifications
      .filter(
        (n) =>
          n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk' && /-\d+-m$/.test((n.update as { messageId?: string }).messageId ?? ''),
      )
      .map((n) => (n.update as { content: { text: string } }).content.text)
      .join('');

  const init = await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  expect(init.agentInfo?.name).toBe('openai-acp');
  const { sessionId } = await agent.request('session/new', { cwd: process.cwd(), mcpServers: [] });

  server.handle(streamText(['Bom', ' dia']));
  const first = await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] });
  expect(first.stopReason).toBe('end_turn');
  expect(first.usage?.totalTokens).toBe(9);
  expect(textOf(sessionId)).toBe('Bom dia');
  // The meter after session/new (used 0), then the request's.
  const usage = notifications.filter((n) => n.update.sessionUpdate === 'usage_update').at(-1);
  expect(usage?.update).toMatchObject({ used: 9, size: 8192 });

  server.handle((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ content: '!' }));
  });
  const pending = agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'more' }] });
  await waitFor(() => textOf(sessionId) === 'Bom dia!');
  await agent.notify('session/cancel', { sessionId });
  expect((await pending).stopReason).toBe('cancelled');
  expect(server.requests.at(-1)!.body.messages).toEqual([
    { role: 'user', content: 'hello' },
    { role: 'assistant', content: 'Bom dia' },
    { role: 'user', content: 'more' },
  ]);

  child.stdin.end();
  expect(await exited).toBe(0);
  connection.close();
});
