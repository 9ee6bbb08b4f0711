/**
 * End to end with acpx, a real headless ACP client from npm: `acpx --agent '<our CLI>' exec`
 * against a loopback OpenAI-compatible server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chunk, httpError, startFakeOpenAI, streamText, type FakeOpenAI } from '../helpers/fake-openai.js';
import { acpxMessages, runAcpx, type AcpxRun } from '../helpers/acpx.js';

let server: FakeOpenAI;
let home: string;

beforeAll(async () => {
  server = await startFakeOpenAI();
  home = mkdtempSync(join(tmpdir(), 'openai-acp-acpx-'));
});
afterAll(async () => {
  await server.close();
  rmSync(home, { recursive: true, force: true });
});

function acpx(prompt: string, env: Record<string, string> = {}, args: string[] = []): Promise<AcpxRun> {
  return runAcpx(prompt, {
    cwd: home,
    args: ['--approve-all', ...args],
    env: { HOME: home, OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_MAX_RETRIES: '0', ...env },
    timeoutMs: 20_000,
  });
}

const messages = acpxMessages;

/** The concatenated `agent_message_chunk` text among acpx's printed messages. */
function messageText(all: any[]): string {
  return all
    .filter((m) => m.method === 'session/update' && m.params.update.sessionUpdate === 'agent_message_chunk')
    .map((m) => m.params.update.content.text)
    .join('');
}

it('acpx exec gets the streamed answer and a clean end_turn', async () => {
  server.handle(streamText(['Olá', ' mundo']));
  const run = await acpx('Say hi in Portuguese');
  expect(run.code).toBe(0);
  const all = messages(run.stdout);
  const text = messageText(all);
  expect(text).toBe('Olá mundo');
  const answer = all.find((m) => m.result?.stopReason);
  expect(answer.result).toMatchObject({ stopReason: 'end_turn', usage: { inputTokens: 7, outputTokens: 2 } });
  // With tools on (the default) the agent's system prompt comes first.
  const sent = server.requests.at(-1)!.body.messages;
  expect(sent[0].role).toBe('system');
  expect(sent.slice(1)).toEqual([{ role: 'user', content: 'Say hi in Portuguese' }]);
});

it('acpx exec on an HTTP 401: a -32603 prompt error whose message is the words, the kind in data, nothing streamed, exit 1', async () => {
  server.handle(httpError(401, { error: { message: 'Incorrect API key provided' } }));
  const run = await acpx('hi', { OPENAI_API_KEY: 'sk-wrong-acpx-key' });
  expect(run.code).toBe(1);
  const all = messages(run.stdout);
  expect(messageText(all)).toBe('');
  expect(run.stdout + run.stderr).not.toContain('sk-wrong-acpx-key');
  const answer = all.find((m) => m.id !== undefined && m.method === undefined && (m.result?.stopReason || m.error?.data?.kind));
  expect(answer.result).toBeUndefined();
  expect(answer.error).toEqual({
    code: -32603,
    message: expect.stringContaining('HTTP 401'),
    data: { kind: 'http', status: 401, retryable: false },
  });
  expect(answer.error.message).toContain('Incorrect API key provided');
  expect(answer.error.message).not.toMatch(/internal error/i);
});

it('acpx exec, as a user sees it, when nothing listens: the explanation once, a one-line error, exit 1', async () => {
  const run = await runAcpx('hi', {
    cwd: home,
    args: ['--approve-all'],
    env: { HOME: home, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_MODEL: 'test-model', OPENAI_MAX_RETRIES: '0' },
    timeoutMs: 20_000,
    format: 'text',
  });
  expect(run.code).toBe(1);
  const both = run.stdout + run.stderr;
  const words = 'Nothing is listening at http://127.0.0.1:9/v1';
  // Shown once in the session's output, as acpx's error line (acpx repeats its error on stderr as it exits); never as the agent's own crash.
  expect(run.stdout.split(words).length - 1).toBe(1);
  expect(both).toContain(`[error] RUNTIME: ${words}`);
  expect(both).not.toMatch(/internal error/i);
  expect(run.stdout).not.toContain('[done] end_turn');
});

it('acpx exec, a turn that answered and then broke off: what it answered is kept, then the failure, exit 1', async () => {
  server.handle((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ role: 'assistant', content: 'Half an' }));
    res.write(chunk({ content: ' answer' }), () => setTimeout(() => res.destroy(), 20));
  });
  const run = await acpx('hi', { OPENAI_MAX_RETRIES: '0' });
  expect(run.code).toBe(1);
  const all = messages(run.stdout);
  // The answer so far ends its line; the failure is the error's message.
  expect(messageText(all)).toBe('Half an answer\n');
  expect(all.find((m) => m.error?.data)?.error).toMatchObject({ code: -32603, message: expect.stringMatching(/broke off/), data: { kind: 'stream' } });
});
