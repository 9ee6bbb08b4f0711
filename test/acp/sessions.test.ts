/**
 * Durable sessions through the real agent wiring (in process, real file store in a temp dir, real
 * loopback HTTP): load with replay, resume, list, close, delete, titles, slash commands and
 * context trimming.
 */
import { COMPACT_INSTRUCTION } from '../../src/context/compaction.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/shared/log.js';
import { openSessionStore } from '../../src/sessions/session-store.js';
import { chunk, startFakeOpenAI, streamText, type FakeOpenAI } from '../helpers/fake-openai.js';
import { connectInProcess, type InProcess } from '../helpers/in-process.js';

const quiet = createLogger({ level: 'error', write: () => undefined });
let server: FakeOpenAI;
let dir: string;
const open: InProcess[] = [];

beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  for (const conn of open.splice(0)) conn.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A fresh agent on the shared state dir (a new process, as far as the store is concerned). */
async function agentOn(stateDir: string, env: Record<string, string> = {}): Promise<InProcess> {
  const conn = await connectInProcess(
    { OPENAI_BASE_URL: server.baseUrl, OPENAI_ACP_TOOLS: 'off', ...env },
    { store: openSessionStore({ stateDir, env: {}, logger: quiet }) },
  );
  open.push(conn);
  return conn;
}
const newDir = () => (dir = mkdtempSync(join(tmpdir(), 'openai-acp-sessions-')));
const text = (t: string) => [{ type: 'text' as const, text: t }];
/** The messages of the last upstream request, as `role: content` strings. */
const lastMessages = () =>
  server.requests
    .at(-1)!
    .body.messages.map((m: { role: string; content: unknown }) => `${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`);
/** A handler that answers each request with a reply naming how many messages it got, plus reasoning. */
const answerCount = () =>
  server.handle((_req, res, body) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ reasoning_content: 'thinking…' }));
    res.write(chunk({ content: `reply to ${body.messages.length} messages` }, 'stop'));
    res.end('data: [DONE]\n\n');
  });

describe('initialize', () => {
  it('advertises load, list, resume, close and delete with a working store, and none of them in memory only', async () => {
    const persistent = await agentOn(newDir());
    const caps = (await persistent.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} })).agentCapabilities;
    expect(caps?.loadSession).toBe(true);
    expect(caps?.sessionCapabilities).toEqual({ list: {}, resume: {}, close: {}, delete: {}, additionalDirectories: {}, fork: {} });
    const memory = await agentOn('off');
    const memCaps = (await memory.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} })).agentCapabilities;
    expect(memCaps?.loadSession).toBe(false);
    // In memory only: nothing to list, resume, close or delete; extra workspace roots still work.
    expect(memCaps?.sessionCapabilities ?? {}).toEqual({ additionalDirectories: {}, fork: {} });
  });
});

describe('session/load and session/resume', () => {
  it('replays both turns in order after a restart, and the next prompt carries them', async () => {
    answerCount();
    const first = await agentOn(newDir());
    const sessionId = await first.newSession();
    await first.agent.request('session/prompt', { sessionId, prompt: text('one') });
    await first.agent.request('session/prompt', { sessionId, prompt: text('two') });
    first.close();

    const second = await agentOn(dir);
    const answer = await second.agent.request('session/load', { sessionId, cwd: process.cwd(), mcpServers: [] });
    const replay = second.notifications
      .filter((n) => n.sessionId === sessionId)
      .map((n) => `${n.update.sessionUpdate}: ${(n.update as { content?: { text?: string } }).content?.text ?? ''}`)
      .filter((line) => !line.startsWith('available_commands_update'));
    expect(replay).toEqual([
      'user_message_chunk: one',
      'agent_thought_chunk: thinking…',
      'agent_message_chunk: reply to 1 messages',
      'user_message_chunk: two',
      'agent_thought_chunk: thinking…',
      'agent_message_chunk: reply to 3 messages',
    ]);
    expect(answer.configOptions?.find((o) => o.id === 'model')).toMatchObject({ currentValue: 'test-model' });
    await second.agent.request('session/prompt', { sessionId, prompt: text('three') });
    expect(lastMessages()).toEqual(['user: one', 'assistant: reply to 1 messages', 'user: two', 'assistant: reply to 3 messages', 'user: three']);
  });

  it('resume restores without replay, keeping the chosen model', async () => {
    answerCount();
    const first = await agentOn(newDir());
    const sessionId = await first.newSession();
    await first.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'typed-model' });
    await first.agent.request('session/prompt', { sessionId, prompt: text('one') });
    first.close();

    const second = await agentOn(dir);
    const answer = await second.agent.request('session/resume', { sessionId, cwd: process.cwd(), mcpServers: [] });
    expect(answer.configOptions?.find((o) => o.id === 'model')).toMatchObject({ currentValue: 'typed-model' });
    expect(second.notifications.filter((n) => n.update.sessionUpdate !== 'available_commands_update')).toEqual([]);
    await second.agent.request('session/prompt', { sessionId, prompt: text('two') });
    expect(server.requests.at(-1)!.body.model).toBe('typed-model');
    expect(lastMessages()).toEqual(['user: one', 'assistant: reply to 1 messages', 'user: two']);
  });

  // session/close is checked over raw JSON-RPC in e2e-sessions: the SDK client turns its -32002 into success.
  it('answers -32002 with the sessionId for unknown ids on load, resume and prompt', async () => {
    const conn = await agentOn(newDir());
    for (const method of ['session/load', 'session/resume'] as const) {
      await expect(conn.agent.request(method, { sessionId: 'nope', cwd: '/', mcpServers: [] })).rejects.toMatchObject({
        code: -32002,
        data: { sessionId: 'nope' },
      });
    }
    await expect(conn.agent.request('session/load', { sessionId: '../etc/passwd', cwd: '/', mcpServers: [] })).rejects.toMatchObject({ code: -32002 });
    await expect(conn.agent.request('session/prompt', { sessionId: 'nope', prompt: text('x') })).rejects.toMatchObject({ code: -32002 });
  });
});

describe('a failed turn', () => {
  it('fails the prompt; what the model answered before the failure is saved and replayed, and so is the prompt of a failure with nothing shown', async () => {
    server.handle((_req, res, body) => {
      if (body.messages.at(-1).content === 'fails') return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"boom"}}');
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ content: 'Half an answer' }), () => setTimeout(() => res.destroy(), 10));
    });
    const first = await agentOn(newDir(), { OPENAI_MAX_RETRIES: '0' });
    const sessionId = await first.newSession();
    const prompt = (words: string) => first.agent.request('session/prompt', { sessionId, prompt: text(words) });
    await expect(prompt('breaks')).rejects.toMatchObject({ code: -32603, message: expect.stringMatching(/broke off/), data: { kind: 'stream' } });
    await expect(prompt('fails')).rejects.toMatchObject({ code: -32603, message: expect.stringMatching(/HTTP 500/), data: { kind: 'http', status: 500 } });
    // The answer so far ends its line; the failure's words are the error's message only.
    expect(first.text(sessionId)).toBe('Half an answer\n');
    first.close();

    const second = await agentOn(dir);
    await second.agent.request('session/load', { sessionId, cwd: process.cwd(), mcpServers: [] });
    const replay = second.notifications
      .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate.endsWith('message_chunk'))
      .map((n) => `${n.update.sessionUpdate}: ${(n.update as { content: { text: string } }).content.text}`);
    expect(replay).toEqual(['user_message_chunk: breaks', 'agent_message_chunk: Half an answer', 'user_message_chunk: fails']);
  });

  it('does not send the prompt of a failure with nothing shown again: asked again, it goes once; the next prompt goes alone', async () => {
    let failing = true;
    server.handle((_req, res, body) => {
      if (failing) return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"boom"}}');
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ content: `reply ${body.messages.length}` }, 'stop'));
      res.end('data: [DONE]\n\n');
    });
    const conn = await agentOn(newDir(), { OPENAI_MAX_RETRIES: '0' });
    const sessionId = await conn.newSession();
    const prompt = (words: string) => conn.agent.request('session/prompt', { sessionId, prompt: text(words) });
    await expect(prompt('first question')).rejects.toMatchObject({ code: -32603, data: { status: 500 } });
    // Asked again word for word: the model reads it once.
    await expect(prompt('first question')).rejects.toMatchObject({ code: -32603 });
    expect(lastMessages()).toEqual(['user: first question']);
    failing = false;
    await prompt('first question');
    expect(lastMessages()).toEqual(['user: first question']);
    failing = true;
    await expect(prompt('second question')).rejects.toMatchObject({ code: -32603 });
    failing = false;
    await prompt('third question');
    expect(lastMessages()).toEqual(['user: first question', 'assistant: reply 1', 'user: third question']);
  });
});

describe('a turn cancelled before any answer', () => {
  it('keeps its message, folded into the next one, so user and assistant still alternate', async () => {
    server.handle((_req, res, body) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (body.messages.at(-1).content === 'slow question') return; // never answers
      res.write(chunk({ content: `reply ${body.messages.length}` }, 'stop'));
      res.end('data: [DONE]\n\n');
    });
    const conn = await agentOn(newDir());
    const sessionId = await conn.newSession();
    await conn.agent.request('session/prompt', { sessionId, prompt: text('one') });
    const slow: Promise<{ stopReason: string }> = conn.agent.request('session/prompt', { sessionId, prompt: text('slow question') });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await conn.agent.notify('session/cancel', { sessionId });
    expect((await slow).stopReason).toBe('cancelled');
    await conn.agent.request('session/prompt', { sessionId, prompt: text('two') });
    expect(lastMessages()).toEqual(['user: one', 'assistant: reply 1', 'user: slow question\n\ntwo']);
  });
});

describe('session/load while a turn of that session runs', () => {
  it('keeps the running copy, so the turn it finishes reaches the next request', async () => {
    let held: { end: (text: string) => void } | undefined;
    server.handle((_req, res, body) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (body.messages.at(-1).content === 'one') {
        res.write(chunk({ content: 'partial' })); // then holds the stream open
        held = res;
        return;
      }
      res.write(chunk({ content: `reply ${body.messages.length}` }, 'stop'));
      res.end('data: [DONE]\n\n');
    });
    const conn = await agentOn(newDir());
    const sessionId = await conn.newSession();
    const first: Promise<{ stopReason: string }> = conn.agent.request('session/prompt', { sessionId, prompt: text('one') });
    while (!conn.text(sessionId).includes('partial')) await new Promise((resolve) => setTimeout(resolve, 5));
    await conn.agent.request('session/load', { sessionId, cwd: '/', mcpServers: [] });
    // The next prompt waits for the running turn, which then ends.
    const second = conn.agent.request('session/prompt', { sessionId, prompt: text('two') });
    held!.end(`${chunk({}, 'stop')}data: [DONE]\n\n`);
    expect((await first).stopReason).toBe('end_turn');
    await second;
    expect(lastMessages()).toEqual(['user: one', 'assistant: partial', 'user: two']);
  });
});

describe('a session another process took over', () => {
  it('fails the turn it could not save, naming the other process, and reads the session from disk before its next turn', async () => {
    answerCount();
    const first = await agentOn(newDir());
    const sessionId = await first.newSession();
    await first.agent.request('session/prompt', { sessionId, prompt: text('one') });
    // Another process sharing the directory takes the session over (here: this process's pid, so at once).
    const second = await agentOn(dir);
    await second.agent.request('session/load', { sessionId, cwd: process.cwd(), mcpServers: [] });
    await second.agent.request('session/prompt', { sessionId, prompt: text('two, elsewhere') });
    await expect(first.agent.request('session/prompt', { sessionId, prompt: text('lost') })).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('taken over by another openai-acp process'),
      data: { sessionId, reason: 'busy' },
    });
    // Its next turn starts from what was saved: the other process's turn, not the lost one.
    await first.agent.request('session/prompt', { sessionId, prompt: text('three') });
    expect(lastMessages()).toEqual(['user: one', 'assistant: reply to 1 messages', 'user: two, elsewhere', 'assistant: reply to 3 messages', 'user: three']);
  });
});

describe('titles, close and delete', () => {
  it('sends session_info_update with the first message as title after the first turn only, and lists it', async () => {
    server.handle(streamText(['ok']));
    const conn = await agentOn(newDir());
    const sessionId = await conn.newSession();
    const long = `Please explain ${'very '.repeat(30)}carefully`;
    await conn.agent.request('session/prompt', { sessionId, prompt: text(long) });
    await conn.agent.request('session/prompt', { sessionId, prompt: text('second') });
    const infos = conn.notifications
      .filter((n) => n.update.sessionUpdate === 'session_info_update')
      .map((n) => n.update as { title: string; updatedAt: string });
    expect(infos).toHaveLength(1);
    expect(infos[0]!.title.length).toBeLessThanOrEqual(80);
    expect(infos[0]!.title.startsWith('Please explain very')).toBe(true);
    expect(Date.parse(infos[0]!.updatedAt)).not.toBeNaN();
    const { sessions } = await conn.agent.request('session/list', {});
    expect(sessions).toEqual([{ sessionId, cwd: process.cwd(), title: infos[0]!.title, updatedAt: expect.any(String) }]);
  });

  it('close forgets the session but keeps it loadable; delete removes it for good', async () => {
    server.handle(streamText(['ok']));
    const conn = await agentOn(newDir());
    const sessionId = await conn.newSession();
    await conn.agent.request('session/prompt', { sessionId, prompt: text('hi') });
    expect(await conn.agent.request('session/close', { sessionId })).toEqual({});
    await expect(conn.agent.request('session/prompt', { sessionId, prompt: text('x') })).rejects.toMatchObject({ code: -32002 });
    await conn.agent.request('session/load', { sessionId, cwd: '/', mcpServers: [] });
    expect(await conn.agent.request('session/delete', { sessionId })).toEqual({});
    expect(await conn.agent.request('session/delete', { sessionId: 'never-existed' })).toEqual({});
    await expect(conn.agent.request('session/load', { sessionId, cwd: '/', mcpServers: [] })).rejects.toMatchObject({ code: -32002 });
    expect((await conn.agent.request('session/list', {})).sessions).toEqual([]);
  });

  it('rejects a garbled list cursor with -32602', async () => {
    const conn = await agentOn(newDir());
    await expect(conn.agent.request('session/list', { cursor: 'garbage!' })).rejects.toMatchObject({ code: -32602 });
  });
});

describe('slash commands', () => {
  it('advertises /clear, /compact, /undo and /help after session/new', async () => {
    const conn = await agentOn(newDir());
    const sessionId = await conn.newSession();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const update = conn.notifications.find((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'available_commands_update');
    expect((update!.update as { availableCommands: { name: string }[] }).availableCommands.map((c) => c.name)).toEqual([
      'clear',
      'compact',
      'undo',
      'help',
      'init',
    ]);
  });

  it('/help answers without asking the model; /clear makes the next request start afresh', async () => {
    answerCount();
    const conn = await agentOn(newDir());
    const sessionId = await conn.newSession();
    await conn.agent.request('session/prompt', { sessionId, prompt: text('one') });
    const before = server.requests.length;
    await conn.agent.request('session/prompt', { sessionId, prompt: text('/help') });
    expect(server.requests.length).toBe(before);
    expect(conn.text(sessionId)).toContain('/compact');
    await conn.agent.request('session/prompt', { sessionId, prompt: text('/clear') });
    expect(server.requests.length).toBe(before);
    await conn.agent.request('session/prompt', { sessionId, prompt: text('two') });
    expect(lastMessages()).toEqual(['user: two']);
  });

  it('/compact asks for a summary and the next request carries it in place of the older turns', async () => {
    server.handle((_req, res, body) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const last = body.messages.at(-1).content as string;
      res.write(chunk({ content: last.startsWith('Summarize') ? 'SUMMARY: user said one and two' : `reply ${body.messages.length}` }, 'stop'));
      res.end('data: [DONE]\n\n');
    });
    const conn = await agentOn(newDir(), { OPENAI_SYSTEM_PROMPT: 'Be brief.' });
    const sessionId = await conn.newSession();
    await conn.agent.request('session/prompt', { sessionId, prompt: text('one') });
    await conn.agent.request('session/prompt', { sessionId, prompt: text('two') });
    await conn.agent.request('session/prompt', { sessionId, prompt: text('/compact') });
    expect(lastMessages().slice(1, -1)).toEqual(['user: one', 'assistant: reply 2', 'user: two', 'assistant: reply 4']);
    await conn.agent.request('session/prompt', { sessionId, prompt: text('three') });
    // The system message as it was, then the summary as the answer to the request for it.
    const summary = [`user: ${COMPACT_INSTRUCTION}`, 'assistant: SUMMARY: user said one and two'];
    expect(lastMessages()).toEqual(['system: Be brief.', ...summary, 'user: three']);
    // The compaction survives a restart.
    const again = await agentOn(dir, { OPENAI_SYSTEM_PROMPT: 'Be brief.' });
    await again.agent.request('session/resume', { sessionId, cwd: '/', mcpServers: [] });
    await again.agent.request('session/prompt', { sessionId, prompt: text('four') });
    expect(lastMessages()).toEqual(['system: Be brief.', ...summary, 'user: three', 'assistant: reply 4', 'user: four']);
  });
});

describe('/compact answered with a tool call', () => {
  it('keeps the turns: a tool call written as text is not a summary', async () => {
    server.handle((_req, res, body) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const last = body.messages.at(-1).content as string;
      res.write(
        chunk({ content: last.startsWith('Summarize') ? '<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>' : 'reply' }, 'stop'),
      );
      res.end('data: [DONE]\n\n');
    });
    const conn = await agentOn(newDir(), { OPENAI_SYSTEM_PROMPT: 'Be brief.' });
    const sessionId = await conn.newSession();
    await conn.agent.request('session/prompt', { sessionId, prompt: text('one') });
    await conn.agent.request('session/prompt', { sessionId, prompt: text('/compact') });
    expect(conn.text(sessionId)).toContain('(That answer is a tool call, not a summary: nothing was compacted.)');
    await conn.agent.request('session/prompt', { sessionId, prompt: text('two') });
    expect(lastMessages()).toEqual(['system: Be brief.', 'user: one', 'assistant: reply', 'user: two']);
  });
});

describe('/compact answered with a summary cut at its length limit', () => {
  it('keeps the turns and says so (the summary shown is incomplete)', async () => {
    server.handle((_req, res, body) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const last = body.messages.at(-1).content as string;
      res.write(last.startsWith('Summarize') ? chunk({ content: 'SUMMARY: the user said one and' }, 'length') : chunk({ content: 'reply' }, 'stop'));
      res.end('data: [DONE]\n\n');
    });
    const conn = await agentOn(newDir(), { OPENAI_SYSTEM_PROMPT: 'Be brief.' });
    const sessionId = await conn.newSession();
    await conn.agent.request('session/prompt', { sessionId, prompt: text('one') });
    const answer: { stopReason: string } = await conn.agent.request('session/prompt', { sessionId, prompt: text('/compact') });
    expect(answer.stopReason).toBe('max_tokens');
    expect(conn.text(sessionId)).toContain('(The summary was cut at its length limit, so it is incomplete: nothing was compacted.)');
    await conn.agent.request('session/prompt', { sessionId, prompt: text('two') });
    expect(lastMessages()).toEqual(['system: Be brief.', 'user: one', 'assistant: reply', 'user: two']);
  });
});

describe('/compact with tool steps', () => {
  it('sends earlier tool calls spelled for the provider (DeepSeek: with reasoning_content), as a turn does', async () => {
    server.handle((_req, res, body) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const last = body.messages.at(-1);
      if (last.role === 'user' && last.content === 'look') {
        res.write(
          chunk(
            {
              reasoning_content: 'need the file',
              tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }],
            },
            'tool_calls',
          ),
        );
      } else res.write(chunk({ content: last.role === 'tool' ? 'it says hi' : 'SUMMARY' }, 'stop'));
      res.end('data: [DONE]\n\n');
    });
    const conn = await agentOn(newDir(), { OPENAI_PROVIDER: 'deepseek', OPENAI_ACP_TOOLS: 'on' });
    writeFileSync(join(dir, 'a.txt'), 'hi\n');
    const { sessionId } = await conn.agent.request('session/new', { cwd: dir, mcpServers: [] });
    await conn.agent.request('session/prompt', { sessionId, prompt: text('look') });
    const inTurn = server.requests.at(-1)!.body.messages.find((m: { tool_calls?: unknown }) => m.tool_calls);
    expect(inTurn.reasoning_content).toBe('need the file');
    await conn.agent.request('session/prompt', { sessionId, prompt: text('/compact') });
    const inCompact = server.requests.at(-1)!.body.messages.find((m: { tool_calls?: unknown }) => m.tool_calls);
    expect(inCompact).toMatchObject({ role: 'assistant', reasoning_content: 'need the file' });
  });
});

describe('context window', () => {
  it('never exceeds a token budget the endpoint enforces, and says when earlier turns were compacted', async () => {
    // The endpoint rejects any prompt over the window less max_tokens, 1,700 tokens (4 characters of JSON a token), like a real 400.
    server.handle((_req, res, body) => {
      const size = JSON.stringify(body.messages).length / 4;
      if (size > 1700) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: {
              message: `This model's maximum context length is 2000 tokens. However, your messages resulted in ${Math.round(size)} tokens.`,
              type: 'invalid_request_error',
              code: 'context_length_exceeded',
            },
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ content: 'x'.repeat(800) }, 'stop', { prompt_tokens: Math.round(size), completion_tokens: 200, total_tokens: Math.round(size) + 200 }));
      res.end('data: [DONE]\n\n');
    });
    const conn = await agentOn(newDir(), { OPENAI_CONTEXT_WINDOW: '2000', OPENAI_MAX_TOKENS: '300' });
    const sessionId = await conn.newSession();
    for (let i = 0; i < 12; i++) {
      const answer: { _meta?: Record<string, unknown> | null } = await conn.agent.request('session/prompt', {
        sessionId,
        prompt: text(`question ${i} ${'y'.repeat(400)}`),
      });
      expect(answer._meta?.['openai-acp']).toBeUndefined();
    }
    // The agent's own words, told as text (never as the model's thoughts).
    expect(conn.thoughts(sessionId)).toBe('');
    expect(conn.text(sessionId)).toMatch(/Context compacted: \d+ earlier turns? summarised to fit the model's context window \(2,000 tokens\)/);
    expect(lastMessages().at(-1)).toContain('question 11');
  });
});

describe('reasoning effort', () => {
  it('offers a thought_level select and sends the chosen effort; default sends nothing', async () => {
    server.handle(streamText(['ok']));
    const conn = await agentOn(newDir(), { OPENAI_MODEL: 'o4-mini', OPENAI_PROVIDER: 'openai' });
    const sessionId = await conn.newSession();
    await conn.agent.request('session/prompt', { sessionId, prompt: text('a') });
    expect(server.requests.at(-1)!.body).not.toHaveProperty('reasoning_effort');
    const answer = await conn.agent.request('session/set_config_option', { sessionId, configId: 'thought_level', value: 'high' });
    expect(answer.configOptions.find((o) => o.id === 'thought_level')).toMatchObject({ category: 'thought_level', currentValue: 'high' });
    await conn.agent.request('session/prompt', { sessionId, prompt: text('b') });
    expect(server.requests.at(-1)!.body.reasoning_effort).toBe('high');
    await expect(conn.agent.request('session/set_config_option', { sessionId, configId: 'thought_level', value: 'extreme' })).rejects.toMatchObject({
      code: -32602,
    });
  });
});
