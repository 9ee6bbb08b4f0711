/**
 * A llama-server whose chat template cannot take tools (Gemma 3's own), end to end: the built CLI
 * against a loopback server that behaves as the real one did (recorded in
 * test/fixtures/llamacpp/): it drops the request's `tools`, the model writes its call as a
 * `<tool_call>` block, a request with a `tool` message or `assistant.tool_calls` gets the recorded
 * 400 template error, `/props` says `supports_tools: false`, and the connection is closed after
 * each answer (sent as `connection: close`). The model's call is the recorded stream itself (a
 * `read_file` of `src/math.js` written as text). The task gets done either way: after one
 * template error mid-turn, or from the first request when the server says so.
 */
import http from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { listenLoopback } from '../helpers/listen-loopback.js';
import { spawnAgent, type AgentProcess } from '../helpers/spawn-agent.js';

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/llamacpp/${name}`, import.meta.url), 'utf8')) as { response: { status: number; body: string } };
const TEMPLATE_ERROR = fixture('template-error-gemma.json').response;
const PROPS = fixture('props-gemma.json').response.body;
/** The real answer to a request with tools under Gemma 3's template: `<tool_call>` read_file src/math.js as text. */
const TEXT_CALL_STREAM = fixture('stream-text-call-gemma.json').response.body;
const ANSWER = 'add returns a - b: it subtracts.';

const dirs: string[] = [];
const agents: AgentProcess[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) agent.kill();
  await Promise.all(closers.splice(0).map((close) => close()));
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Seen {
  messages: { role: string; content: unknown; tool_calls?: unknown }[];
  tools: boolean;
}

/**
 * The Gemma-template llama-server stand-in; `seen` holds every chat request, `refused` counts the
 * 400s. `props: false`: `/props` is not served (a proxy in front of the server), so only the
 * template error tells.
 */
async function gemmaServer(props = true) {
  const state = { seen: [] as Seen[], refused: 0, props: 0 };
  const server = http.createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      const json = (status: number, body: string) =>
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', connection: 'close' }).end(body);
      if (props && req.method === 'GET' && req.url === '/props') {
        state.props++;
        return json(200, PROPS);
      }
      if (req.method === 'GET' && req.url?.endsWith('/models'))
        return json(200, JSON.stringify({ object: 'list', data: [{ id: 'math', object: 'model', owned_by: 'llamacpp', meta: { n_ctx_train: 32768 } }] }));
      // Nor the slots' first look (`/completion`, `/slots/…`): only chat requests are answered.
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions'))
        return json(404, '{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}');
      const body = JSON.parse(text) as { messages: Seen['messages']; tools?: unknown };
      state.seen.push({ messages: body.messages, tools: body.tools !== undefined });
      // What Gemma 3's template raises on: a `tool` role or an assistant message with tool_calls.
      if (body.messages.some((m) => m.role === 'tool' || (m.role === 'assistant' && m.tool_calls))) {
        state.refused++;
        return json(TEMPLATE_ERROR.status, TEMPLATE_ERROR.body);
      }
      const last = body.messages.at(-1)!;
      const lastText = typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
      res.writeHead(200, { 'content-type': 'text/event-stream', connection: 'close' });
      // `tools` are dropped: the model writes the call as text (the recorded stream), then answers once it has the result.
      if (!/Result of read_file/.test(lastText)) return res.end(TEXT_CALL_STREAM);
      const chunk = (delta: object, finish: string | null = null) => {
        const body = { id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'math', choices: [{ index: 0, delta, finish_reason: finish }] };
        return `data: ${JSON.stringify(body)}\n\n`;
      };
      res.write(chunk({ role: 'assistant', content: null }));
      res.write(chunk({ content: ANSWER }));
      res.write(chunk({}, 'stop'));
      res.end('data: [DONE]\n\n');
    });
  });
  const { port, close } = await listenLoopback(server);
  closers.push(close);
  return { state, baseUrl: `http://127.0.0.1:${port}/v1` };
}

async function runTask(env: Record<string, string>, props = true) {
  const server = await gemmaServer(props);
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'openai-acp-gemma-')));
  dirs.push(cwd);
  mkdirSync(join(cwd, 'src'));
  writeFileSync(join(cwd, 'src', 'math.js'), 'function add(a, b) {\n  return a - b;\n}\n');
  const agent = spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'math', OPENAI_API_KEY: 'none', OPENAI_ACP_STATE_DIR: 'off', ...env });
  agents.push(agent);
  await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
  await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
  const answer = await agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'What does add return?' }] });
  return { server, cwd, agent, sessionId: result.sessionId as string, answer };
}

const toolShapes = (seen: Seen) => seen.messages.some((m) => m.role === 'tool' || (m.role === 'assistant' && m.tool_calls));

describe('a llama-server template without tools', () => {
  it('a template error mid-turn: the agent switches to the text path, sends the step again, and the task gets done', async () => {
    const { server, agent, sessionId, answer } = await runTask({}, false);
    expect(answer.result.stopReason).toBe('end_turn');
    expect(answer.result._meta).toBeUndefined();
    expect(agent.text(sessionId)).toContain(ANSWER);
    expect(agent.text(sessionId)).not.toMatch(/Jinja|Conversation roles/);
    // One refusal (the step with the first call's result), then only requests without tool shapes.
    expect(server.state.refused).toBe(1);
    const after = server.state.seen.slice(server.state.seen.findIndex(toolShapes) + 1);
    expect(after.length).toBeGreaterThan(0);
    for (const seen of after) {
      expect(seen.tools).toBe(false);
      expect(toolShapes(seen)).toBe(false);
    }
    expect(after[0]!.messages[0]!.content).toMatch(/To call a tool, answer with only a block like this/);
    expect(after[0]!.messages.at(-1)!.content).toMatch(/^Result of read_file:\n[\s\S]*return a - b;/);
    // The next turn: its history (the first turn's calls and results) is spelled as text too.
    const count = server.state.seen.length;
    const again = await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Read it again.' }] });
    expect(again.result.stopReason).toBe('end_turn');
    expect(server.state.refused).toBe(1);
    const next = server.state.seen.slice(count);
    expect(next.length).toBe(2);
    for (const seen of next) expect(seen.tools || toolShapes(seen)).toBe(false);
    expect(next[0]!.messages.filter((m) => m.role === 'user').some((m) => String(m.content).startsWith('Result of read_file:'))).toBe(true);
  });

  it.each([
    ['recognised by its answers', {}],
    ['OPENAI_PROVIDER=llamacpp', { OPENAI_PROVIDER: 'llamacpp' }],
  ])('when /props says the template takes no tools (%s), the first request is already on the text path', async (_how, env) => {
    const { server, agent, sessionId, answer } = await runTask(env);
    expect(answer.result.stopReason).toBe('end_turn');
    expect(agent.text(sessionId)).toContain(ANSWER);
    expect(server.state.props).toBeGreaterThan(0);
    expect(server.state.refused).toBe(0);
    expect(server.state.seen.length).toBe(2);
    for (const seen of server.state.seen) expect(seen.tools || toolShapes(seen)).toBe(false);
    const notices = agent.messages
      .filter((m) => m.method === 'session/update' && m.params.update.sessionUpdate === 'agent_message_chunk')
      .map((m) => m.params.update.content.text)
      .join('');
    expect(notices.match(/gets its tools as text: the server says its chat template cannot take tools/g)).toHaveLength(1);
  });
});
