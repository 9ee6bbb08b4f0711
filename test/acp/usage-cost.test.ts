/**
 * `usage_update.cost` through the agent: LiteLLM's `x-litellm-response-cost` header added up over
 * the session's requests; nothing when no cost is reported (never a price of our own).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chunk, startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { connectInProcess } from '../helpers/in-process.js';

let server: FakeOpenAI;
let cost: string | undefined;
beforeAll(async () => {
  server = await startFakeOpenAI((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', ...(cost ? { 'x-litellm-response-cost': cost } : {}) });
    res.write(chunk({ content: 'ok' }));
    res.write(chunk({}, 'stop', { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 }));
    res.end('data: [DONE]\n\n');
  });
});
afterAll(() => server.close());

it("adds LiteLLM's response-cost header up into the session's cost, and sends none while nothing reports one", async () => {
  const io = await connectInProcess({ OPENAI_BASE_URL: server.baseUrl, OPENAI_ACP_TOOLS: 'off', OPENAI_CONTEXT_WINDOW: '32768' });
  const sessionId = await io.newSession();
  const meters = () =>
    io.notifications
      .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'usage_update')
      .map((n) => n.update as { cost?: { amount: number; currency: string } });
  cost = undefined;
  await io.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'one' }] });
  expect(meters().every((m) => m.cost === undefined)).toBe(true);
  cost = '0.0005';
  await io.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'two' }] });
  expect(meters().at(-1)!.cost).toEqual({ amount: 0.0005, currency: 'USD' });
  cost = 'not-a-number';
  await io.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'three' }] });
  expect(meters().at(-1)!.cost).toEqual({ amount: 0.0005, currency: 'USD' });
  cost = '0.00025';
  await io.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'four' }] });
  expect(meters().at(-1)!.cost!.amount).toBeCloseTo(0.00075, 12);
  io.close();
});
