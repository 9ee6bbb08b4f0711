/**
 * A failure inside a failure over `openai-acp serve` (the built CLI, the SDK's remote clients):
 * the client's connection goes away while the endpoint's HTTP 500 is half read, then the
 * endpoint dies too. The server serves on, and another connection loads the session with the
 * user's prompt and prompts it again.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { chunk, fakeServerPool, type ChatHandler } from '../helpers/fake-openai.js';
import { serveFixtures, until, type Transport } from '../helpers/serve-client.js';

const TOKEN = 'failed-turn-token-0123456789';
const servers = fakeServerPool();
const fixtures = serveFixtures();

describe.each(['ws', 'http'] as Transport[])('a client over %s that leaves while its prompt fails', (transport) => {
  it('leaves the session loadable from another connection, with the prompt, and the next prompt answered', async () => {
    let stalled: ServerResponse | undefined;
    // "stall": a 500 whose body waits for the test; anything else: "reply N" (N = messages received).
    const handler: ChatHandler = (_req, res, body) => {
      if (JSON.stringify(body.messages.at(-1).content).endsWith('stall"')) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.write('{"error":{"message":"upstream bro');
        stalled = res;
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ content: `reply ${body.messages.length}` }, 'stop'));
      res.end('data: [DONE]\n\n');
    };
    const { home, root } = fixtures.scratch();
    const model = await servers(handler);
    const server = await fixtures.start(home, { OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_MAX_RETRIES: '0' }, [
      '--token',
      TOKEN,
      '--root',
      root,
    ]);
    const leaving = await fixtures.connect(server.url, transport, { token: TOKEN });
    const { sessionId } = (await leaving.agent.request('session/new', { cwd: root, mcpServers: [] })) as { sessionId: string };
    void leaving.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'the question mid-failure: stall' }] }).catch(() => undefined);
    await until(() => stalled !== undefined, 20_000, 'the 500 to start');
    leaving.close();
    await leaving.closed;
    // Then the endpoint dies while the failure is still being read.
    stalled!.socket?.destroy();

    const back = await fixtures.connect(server.url, transport, { token: TOKEN });
    await back.agent.request('session/load', { sessionId, cwd: root, mcpServers: [] });
    const replayed = back.updates
      .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate.endsWith('message_chunk'))
      .map((n) => `${n.update.sessionUpdate}: ${(n.update as { content: { text: string } }).content.text}`);
    expect(replayed).toEqual(['user_message_chunk: the question mid-failure: stall']);
    const answer = (await back.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'next' }] })) as { stopReason: string };
    expect(answer.stopReason).toBe('end_turn');
    expect(back.text(sessionId)).toMatch(/^reply \d+$/);
    expect(server.child.exitCode).toBeNull();
  }, 90_000);
});
