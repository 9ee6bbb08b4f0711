/**
 * Model selection over ACP (in process): `session/set_config_option` and the legacy
 * `session/set_model` change the model that session's next upstream request carries.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startFakeOpenAI, streamText, type FakeOpenAI } from '../helpers/fake-openai.js';
import { connectInProcess, type InProcess } from '../helpers/in-process.js';

let server: FakeOpenAI;
let conn: InProcess;

beforeAll(async () => {
  server = await startFakeOpenAI(streamText(['ok']));
  server.setModels({ object: 'list', data: [{ id: 'test-model' }, { id: 'other-model', context_length: 8000 }, { id: 'third-model' }] });
});
afterAll(() => server.close());
afterEach(() => conn?.close());

const prompt = (sessionId: string) => conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
const lastModel = () => server.requests.at(-1)!.body.model;

it('set_config_option and set_model change the model of that session only', async () => {
  conn = await connectInProcess({ OPENAI_BASE_URL: server.baseUrl });
  const first = await conn.newSession();
  const second = await conn.newSession();
  const third = await conn.newSession();

  const answer = await conn.agent.request('session/set_config_option', { sessionId: first, configId: 'model', value: 'other-model' });
  expect(answer.configOptions.filter((option) => option.id === 'model')).toEqual([
    {
      id: 'model',
      name: 'Model',
      category: 'model',
      type: 'select',
      currentValue: 'other-model',
      options: ['test-model', 'other-model', 'third-model'].map((id) => ({ value: id, name: id })),
    },
  ]);
  expect(await conn.agent.request('session/set_model', { sessionId: second, modelId: 'third-model' })).toEqual({});

  await prompt(first);
  expect(lastModel()).toBe('other-model');
  await prompt(second);
  expect(lastModel()).toBe('third-model');
  await prompt(third);
  expect(lastModel()).toBe('test-model');
  await prompt(first);
  expect(lastModel()).toBe('other-model');
});

it('accepts a typed model id that was not listed, and adds it to that session only', async () => {
  conn = await connectInProcess({ OPENAI_BASE_URL: server.baseUrl });
  const typed = await conn.newSession();
  const other = await conn.newSession();
  const answer = await conn.agent.request('session/set_config_option', { sessionId: typed, configId: 'model', value: 'org/custom:7b' });
  const select = answer.configOptions[0] as { currentValue: string; options: { value: string }[] };
  expect(select.currentValue).toBe('org/custom:7b');
  expect(select.options.map((o) => o.value)).toEqual(['test-model', 'other-model', 'third-model', 'org/custom:7b']);
  await prompt(typed);
  expect(lastModel()).toBe('org/custom:7b');
  const untouched = await conn.agent.request('session/set_config_option', { sessionId: other, configId: 'model', value: 'test-model' });
  expect((untouched.configOptions[0] as { options: unknown[] }).options).toHaveLength(3);
});

it('rejects an unknown configId, an unusable value and an unknown session', async () => {
  conn = await connectInProcess({ OPENAI_BASE_URL: server.baseUrl });
  const sessionId = await conn.newSession();
  await expect(conn.agent.request('session/set_config_option', { sessionId, configId: 'mode', value: 'x' })).rejects.toMatchObject({ code: -32602 });
  const bad = conn.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'not a model id' });
  await expect(bad).rejects.toMatchObject({ code: -32602 });
  await expect(bad).rejects.toThrow(/test-model, other-model, third-model/);
  await expect(conn.agent.request('session/set_model', { sessionId, modelId: '' })).rejects.toMatchObject({ code: -32602 });
  await expect(conn.agent.request('session/set_model', { sessionId: 'nope', modelId: 'test-model' })).rejects.toMatchObject({ code: -32002 });
  await expect(conn.agent.request('session/set_config_option', { sessionId: 'nope', configId: 'model', value: 'test-model' })).rejects.toMatchObject({
    code: -32002,
  });
  await prompt(sessionId);
  expect(lastModel()).toBe('test-model');
});

it("uses the selected model's context window for usage_update", async () => {
  conn = await connectInProcess({ OPENAI_BASE_URL: server.baseUrl });
  const sessionId = await conn.newSession();
  await conn.agent.request('session/set_model', { sessionId, modelId: 'other-model' });
  await prompt(sessionId);
  const usage = conn.notifications.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'usage_update');
  expect(usage.at(-1)?.update).toMatchObject({ size: 8000 });
});
