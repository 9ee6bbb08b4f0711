/**
 * Issue 11 items 9, 10 and 16 against the built CLI: a provider error that echoes every
 * configured secret reaches neither the client (stdout) nor the logs (stderr).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { spawnAgent, type AgentProcess } from '../helpers/spawn-agent.js';

let server: FakeOpenAI;
let agent: AgentProcess | undefined;
beforeAll(async () => void (server = await startFakeOpenAI()));
afterAll(() => server.close());
afterEach(() => {
  agent?.kill();
  agent = undefined;
});

const KEY = 'sk-canary-key-0123456789';
const GATEWAY = 'gw-canary-[a+b]*?';
const QUERY = 'q-canary-value';
const env = () => ({
  OPENAI_BASE_URL: server.baseUrl,
  OPENAI_API_KEY: KEY,
  OPENAI_MODEL: 'test-model',
  OPENAI_MAX_RETRIES: '0',
  OPENAI_ACP_STATE_DIR: 'off',
  OPENAI_HEADERS: JSON.stringify({ 'X-Gateway': GATEWAY }),
  OPENAI_QUERY: `key=${QUERY}`,
});

describe('secrets in provider errors', () => {
  it('a 401 body echoing the key, a header and the query is scrubbed from the message and the logs', async () => {
    server.handle((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `bad key ${req.headers['authorization']} via ${req.headers['x-gateway']} at ${req.url}` } }));
    });
    agent = spawnAgent(env());
    const sessionId = await agent.start();
    const answer = await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(answer.error).toMatchObject({ code: -32603, data: { kind: 'http', status: 401 } });
    const text = answer.error.message;
    expect(text).toContain('HTTP 401');
    const stdout = JSON.stringify(agent.messages);
    for (const secret of [KEY, GATEWAY, QUERY]) {
      expect(stdout).not.toContain(secret);
      expect(agent.stderr()).not.toContain(secret);
    }
    expect(text).toContain('key=***');
  });

  it('a connection cut mid-body is told without internal codes', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': hello\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    agent = spawnAgent(env());
    const sessionId = await agent.start();
    const answer = await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    const text = answer.error.message;
    expect(text).toContain('broke off');
    expect(text).not.toMatch(/UND_ERR|ERR_/);
  });
});
