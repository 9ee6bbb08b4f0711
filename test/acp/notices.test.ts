/**
 * Notices through the agent: a model the server says takes no tools is told once per session, as
 * a `notice` to a client with `session.notices` and not at all to one without (there was no text
 * for it before).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chunk, startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { connectInProcess } from '../helpers/in-process.js';

let server: FakeOpenAI;
beforeAll(async () => {
  server = await startFakeOpenAI((_req, res, body) => {
    if (body.tools) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'registry.ollama.ai/library/test-model does not support tools' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ content: 'plain answer' }));
    res.end(`${chunk({}, 'stop')}data: [DONE]\n\n`);
  });
});
afterAll(() => server.close());

it.each([
  [true, 1],
  [false, 0],
])('session.notices %s: the no-tools notice is sent %i time(s) over two turns', async (notices, count) => {
  const io = await connectInProcess({ OPENAI_BASE_URL: server.baseUrl, OPENAI_CONTEXT_WINDOW: '32768' });
  await io.agent.request('initialize', { protocolVersion: 1, clientCapabilities: notices ? { session: { notices: {} } } : {} });
  const sessionId = await io.newSession();
  for (const text of ['one', 'two'])
    expect((await io.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] })).stopReason).toBe('end_turn');
  expect(io.text(sessionId)).toContain('plain answer');
  const told = io.notifications.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'notice');
  expect(told).toHaveLength(count);
  if (count) expect(told[0]!.update).toMatchObject({ severity: 'warning', title: 'test-model takes no tools' });
  io.close();
});
