/**
 * Issue 17 end to end: the built CLI, with local tools, runs a multi-read tool loop against a
 * loopback model that enforces its context window the way vLLM does (HTTP 400 "This model's
 * maximum context length is …" for a prompt plus max_tokens over it). Every request stays inside
 * the window, the task message is in every request, old results come back as stubs; and a
 * window too small for the system prompt and tools ends the turn before any model request.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chunk, fakeServerPool, type ChatHandler } from '../helpers/fake-openai.js';
import { spawnAgent, type AgentProcess } from '../helpers/spawn-agent.js';
import { tempDirs } from '../helpers/tool-script.js';

const servers = fakeServerPool();
const workspace = tempDirs('openai-acp-window-');
const agents: AgentProcess[] = [];
afterEach(() => {
  for (const agent of agents.splice(0)) agent.kill();
});

const TASK = 'Read the modules one by one and tell me which one parses the configuration.';

/** The server's own count of a request's prompt: JSON characters / 4, as a tokenizer-free server would. */
const promptTokens = (body: Record<string, any>) =>
  Math.ceil(
    (JSON.stringify(body.messages.map((m: Record<string, unknown>) => ({ ...m, role: undefined }))).length +
      (body.tools ? JSON.stringify(body.tools).length : 0)) /
      4,
  ) +
  4 * body.messages.length;

/** A model with a `window`-token context: rejects what does not fit; else reads `files` one per answer, then answers. */
function enforcing(window: number, files: string[]) {
  const seen: { tokens: number; rejected: boolean; task: boolean; stubs: number }[] = [];
  let step = 0;
  const handler: ChatHandler = (_req, res, body) => {
    const tokens = promptTokens(body);
    const asked = tokens + (body.max_tokens ?? body.max_completion_tokens ?? 0);
    const rejected = asked > window;
    const text = (m: any) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''));
    seen.push({
      tokens,
      rejected,
      task: body.messages.some((m: any) => m.role === 'user' && text(m).includes(TASK)),
      stubs: body.messages.filter((m: any) => m.role === 'tool' && /^\[Result of read_file .* left out to save context/.test(m.content)).length,
    });
    if (rejected) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          object: 'error',
          message:
            `This model's maximum context length is ${window} tokens. However, you requested ${asked} tokens ` +
            `(${tokens} in the messages, ${asked - tokens} in the completion). ` +
            'Please reduce the length of the messages or completion.',
          type: 'BadRequestError',
          param: null,
          code: 400,
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const usage = { prompt_tokens: tokens, completion_tokens: 10, total_tokens: tokens + 10 };
    const summary = body.messages.at(-1)?.role === 'user' && /Summarize our conversation so far/.test(text(body.messages.at(-1))) && !body.tools;
    if (summary) res.write(chunk({ content: `Read ${step} modules so far; none parses the configuration yet.` }, 'stop', usage));
    else if (step < files.length) {
      res.write(
        chunk({
          tool_calls: [{ index: 0, id: `call_${step}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: files[step++] }) } }],
        }),
      );
      res.write(chunk({}, 'tool_calls', usage));
    } else res.write(chunk({ content: 'module7.ts parses the configuration.' }, 'stop', usage));
    res.end('data: [DONE]\n\n');
  };
  return { handler, seen };
}

async function start(handler: ChatHandler, env: Record<string, string>) {
  const server = await servers(handler);
  const agent = spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_ACP_STATE_DIR: 'off', ...env });
  agents.push(agent);
  await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  return { server, agent };
}

describe('every request of a tool loop inside the window the server enforces', () => {
  it('reads twelve 230-line files in an 8,000-token window without a rejected request', async () => {
    const cwd = workspace();
    const files = Array.from({ length: 12 }, (_, i) => `module${i}.ts`);
    for (const [i, name] of files.entries())
      writeFileSync(
        join(cwd, name),
        Array.from({ length: 230 }, (_, n) => `export const value${n} = read(${i}, ${n}); // module ${i} line ${n + 1}`).join('\n'),
      );
    const model = enforcing(8000, files);
    const { agent } = await start(model.handler, { OPENAI_CONTEXT_WINDOW: '8000' });
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    const answer = await agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: TASK }] });
    expect(answer.result?.stopReason).toBe('end_turn');
    expect(agent.text(result.sessionId)).toContain('module7.ts parses the configuration.');
    expect(model.seen.length).toBeGreaterThanOrEqual(13);
    expect(model.seen.filter((r) => r.rejected)).toEqual([]);
    for (const r of model.seen) expect(r.tokens).toBeLessThanOrEqual(8000);
    expect(model.seen.every((r) => r.task)).toBe(true);
    // Old results were replaced by stubs to make room; the read tool results came back cut with a note.
    expect(Math.max(...model.seen.map((r) => r.stubs))).toBeGreaterThan(0);
    const reads = agent.updates(result.sessionId).filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed');
    expect(reads).toHaveLength(12);
    // The next turn starts from the pruned state: its request repeats the stubs, inside the window.
    const before = model.seen.length;
    const next = await agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'And which one writes it?' }] });
    expect(next.result?.stopReason).toBe('end_turn');
    const first = model.seen[before]!;
    expect(first.rejected).toBe(false);
    expect(first.stubs).toBeGreaterThan(0);
    expect(agent.badLines).toEqual([]);
  });

  it('learns a smaller window from a vLLM overflow answer, fits the request again and goes on', async () => {
    const cwd = workspace();
    const files = Array.from({ length: 8 }, (_, i) => `module${i}.ts`);
    for (const [i, name] of files.entries())
      writeFileSync(
        join(cwd, name),
        Array.from({ length: 230 }, (_, n) => `export const value${n} = read(${i}, ${n}); // module ${i} line ${n + 1}`).join('\n'),
      );
    const model = enforcing(8000, files);
    const { agent } = await start(model.handler, { OPENAI_CONTEXT_WINDOW: '32000' });
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    const answer = await agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: TASK }] });
    expect(answer.error).toBeUndefined();
    expect(answer.result?.stopReason).toBe('end_turn');
    expect(agent.text(result.sessionId)).toContain('module7.ts parses the configuration.');
    const first = model.seen.findIndex((r) => r.rejected);
    expect(first).toBeGreaterThan(0);
    expect(model.seen.slice(first + 1).filter((r) => r.rejected)).toEqual([]);
    expect(model.seen.every((r) => r.task)).toBe(true);
  });

  it('ends the turn at once, naming the smallest window, when the window cannot hold the system prompt and tools', async () => {
    const cwd = workspace();
    const model = enforcing(1000, []);
    const { server, agent } = await start(model.handler, { OPENAI_CONTEXT_WINDOW: '1000' });
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    const answer = await agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: TASK }] });
    expect(answer.error).toMatchObject({ code: -32603, data: { kind: 'config', retryable: false } });
    // The error's message is the words: the window, what it needs, the fix.
    expect(answer.error.message).toMatch(
      /context window \(1,000 tokens\) is too small .* it needs at least [\d,]+ tokens\. Fix: use a model or server with a larger context window/,
    );
    expect(model.seen).toEqual([]);
    expect(server.requests.filter((r) => r.url.includes('/chat/completions'))).toEqual([]);
  });
});
