/**
 * What an agent learns about its endpoints is its own (`AgentState.learned`): a window stated by
 * an overflow answer is used by the next turn of the same agent, and a second agent in the same
 * process talking to the same server starts without it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectInProcess } from '../helpers/in-process.js';
import { httpError, startFakeOpenAI, streamText, type FakeOpenAI } from '../helpers/fake-openai.js';
import { answerRoom } from '../../src/context/token-estimate.js';

const OVERFLOW = {
  error: {
    message: "This model's maximum context length is 4097 tokens. However, your messages resulted in 4294 tokens. Please reduce the length of the messages.",
    type: 'invalid_request_error',
    param: 'messages',
    code: 'context_length_exceeded',
  },
};

let server: FakeOpenAI;
/** Answers the first chat request with the overflow, every later one with text. */
let overflowNext = true;
beforeAll(async () => {
  const text = streamText(['ok']);
  const overflow = httpError(400, OVERFLOW);
  server = await startFakeOpenAI((req, res, body) => {
    if (overflowNext) {
      overflowNext = false;
      return overflow(req, res, body);
    }
    return text(req, res, body);
  });
});
afterAll(() => server.close());

const cap = (body: Record<string, unknown>) => body['max_tokens'] ?? body['max_completion_tokens'];
const env = () => ({ OPENAI_BASE_URL: server.baseUrl, OPENAI_ACP_TOOLS: 'off', OPENAI_CONTEXT_WINDOW: '32768' });

it("keeps a window learned from an overflow answer for the agent's next turns, and for no other agent", async () => {
  const first = await connectInProcess(env());
  const sessionId = await first.newSession();
  await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'one' }] });
  // The overflow, then the same step planned for the stated window.
  expect(server.requests).toHaveLength(2);
  expect(cap(server.requests[1]!.body)).toBe(answerRoom(4097));
  await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'two' }] });
  expect(server.requests).toHaveLength(3);
  expect(cap(server.requests[2]!.body)).toBe(answerRoom(4097));
  first.close();

  const second = await connectInProcess(env());
  const other = await second.newSession();
  await second.agent.request('session/prompt', { sessionId: other, prompt: [{ type: 'text', text: 'one' }] });
  expect(server.requests).toHaveLength(4);
  expect(cap(server.requests[3]!.body)).toBe(answerRoom(32768));
  second.close();
});
