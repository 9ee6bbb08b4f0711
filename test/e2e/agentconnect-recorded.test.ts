/**
 * `openai-acp agentconnect` against exactly what AgentConnect's own SDK and its connect widget send
 * (recorded from them: `test/fixtures/agentconnect/sdk-and-ui-flows.json` says how), replayed
 * against the built CLI, with the answers checked the way the SDK and the widget read them: the
 * widget's Save (`acp.providers.login`) succeeds, the first model listed (the one it picks) is the
 * default, `model: "default"` is the default model, every event of a session comes after the answer
 * that gave the app its id (the SDK drops it otherwise), `final` names the session, and the API key
 * typed into the widget is used and logged nowhere.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { chunk, fakeServerPool } from '../helpers/fake-openai.js';
import { frontDoorPool } from '../helpers/agentconnect-client.js';

interface Flow {
  what: string;
  requests: { method: string; params?: Record<string, unknown> }[];
}
const recorded = JSON.parse(readFileSync(new URL('../fixtures/agentconnect/sdk-and-ui-flows.json', import.meta.url), 'utf8')) as {
  flows: Record<string, Flow>;
};

const servers = fakeServerPool();
const { door: startDoor, app: connect } = frontDoorPool();

/** `value` with each `$sessionN` replaced by the session id the Nth create answered. */
function bind(value: unknown, sessions: string[]): unknown {
  if (typeof value === 'string') return /^\$session\d+$/.test(value) ? sessions[Number(value.slice('$session'.length)) - 1] : value;
  if (Array.isArray(value)) return value.map((item) => bind(item, sessions));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, bind(item, sessions)]));
  return value;
}

it('serves the recorded SDK quick start, resume and connect-widget flows as the SDK and the widget read them', async () => {
  const server = await servers((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ content: 'Hello from the model.' }, 'stop', { prompt_tokens: 20, completion_tokens: 4, total_tokens: 24 }));
    res.end('data: [DONE]\n\n');
  });
  // The server lists the default model second: the host still lists it first.
  server.setModels({ object: 'list', data: [{ id: 'other-model' }, { id: 'test-model', context_length: 32768 }] });
  const door = await startDoor(server.baseUrl);
  const sessions: string[] = [];

  for (const [name, flow] of Object.entries(recorded.flows)) {
    const app = await connect(door.url);
    for (const request of flow.requests) {
      const answer = await app.request(request.method, bind(request.params, sessions) as Record<string, unknown> | undefined);
      const where = `${name}: ${request.method}`;
      expect(answer.error, where).toBeUndefined();
      const result = answer.result;
      switch (request.method) {
        case 'acp.providers.login':
          // The widget shows "Save failed" on an error and "unreachable" on loggedIn false.
          expect(result, where).toEqual({ loggedIn: true });
          break;
        case 'acp.providers.list':
          expect(result.providers, where).toEqual([expect.objectContaining({ id: 'local', installed: true, loggedIn: true })]);
          break;
        case 'acp.models.list':
          // The widget selects models[0].
          expect(result.models[0].id, where).toBe('test-model');
          break;
        case 'acp.sessions.create': {
          sessions.push(result.sessionId);
          break;
        }
        case 'acp.sessions.send': {
          const sessionId = (request.params as { sessionId: string }).sessionId;
          const final = await app.waitForEvent(bind(sessionId, sessions) as string, (event) => event.type === 'final');
          expect(final.data, where).toEqual({ text: 'Hello from the model.', stopReason: 'end_turn', providerSessionId: bind(sessionId, sessions) });
          break;
        }
        case 'acp.capabilities.observed':
          expect(result, where).toEqual({
            appId: 'agentconnect-app',
            requested: [],
            observed: ['agent.connect', 'model.local'],
            updatedAt: expect.any(String),
          });
          break;
      }
    }
    // The meter after create or resume comes, and after the answer naming the session.
    for (const sessionId of sessions) {
      const answered = app.received.findIndex((message) => message.result?.sessionId === sessionId);
      if (answered < 0) continue;
      await app.waitForEvent(sessionId, (event) => event.type === 'context_usage');
      const firstEvent = app.received.findIndex((message) => message.method === 'acp.session.event' && message.params.sessionId === sessionId);
      expect(firstEvent, `${name}: events of ${sessionId}`).toBeGreaterThan(answered);
    }
  }

  // `model: "default"` and the widget's model both reached the endpoint as the configured default.
  expect(server.requests.map((request) => request.body.model)).toEqual(['test-model', 'test-model']);
  // The key typed into the widget went nowhere: not upstream, not in the log (only the option's name is).
  const typedKey = 'sk-typed-into-the-widget-0123';
  expect(JSON.stringify(server.requests.map((request) => request.headers))).not.toContain(typedKey);
  expect(door.stderr()).not.toContain(typedKey);
  expect(door.stderr()).toContain('"apiKey"');
});
